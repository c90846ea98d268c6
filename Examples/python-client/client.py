#!/usr/bin/env python3
"""Buy a product through `iapcontent daemon`: add the purchase, draw a progress bar, print the content path.
Usage: client.py PRODUCT_ID [TRANSACTION_ID] [SOCKET]   (standard library only)"""
import json, os, socket, sys, uuid

product = sys.argv[1]
transaction = sys.argv[2] if len(sys.argv) > 2 else "purchase-" + uuid.uuid4().hex[:8]
path = sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.environ["XDG_RUNTIME_DIR"], "iapcontent/daemon.sock")

conn = socket.socket(socket.AF_UNIX)
conn.connect(path)
lines = conn.makefile("r", encoding="utf-8")
next_id, content = 0, None

def call(method, **params):
    """Send a request; return its result (notifications that arrive first are handled on the way)."""
    global next_id
    next_id += 1
    conn.sendall((json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params}) + "\n").encode())
    while True:
        message = json.loads(lines.readline())
        if message.get("id") == next_id:
            if "error" in message:
                sys.exit(f"{method}: {message['error']['message']}")
            return message["result"]
        handle(message)

def handle(message):
    """Draw progress; note the content path once installed."""
    global content
    params = message.get("params", {})
    download = params.get("download", {})
    if download.get("productID") != product:
        return
    if message["method"] in ("download.progress", "download.state"):
        done = int(download["progress"] * 40)
        eta = f"{download['timeRemaining']:.0f} s left" if download["timeRemaining"] >= 0 else ""
        print(f"\r{product} [{'#' * done}{'.' * (40 - done)}] {download['progress']:4.0%} {eta:12}", end="", flush=True)
    elif message["method"] == "download.error":
        sys.exit(f"\n{product}: {params['error']['code']}: {params['error']['message']}")
    elif message["method"] == "download.finished":
        content = params["contentURL"]

call("subscribe")
added = call("add", transactionID=transaction, productID=product)
content = content or next((d["contentURL"] for d in added["downloads"] if d["state"] == "finished"), None)
while content is None:
    handle(json.loads(lines.readline()))
call("finish", transactionID=transaction)
print(f"\n{product}: {content}")
