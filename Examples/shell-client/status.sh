#!/bin/sh
# Ask `iapcontent daemon` for its status and print the reply: one JSON-RPC request, one line back.
# Usage: status.sh [SOCKET]   (needs socat, or an nc with -U)
SOCKET=${1:-${XDG_RUNTIME_DIR:?set XDG_RUNTIME_DIR or pass the socket}/iapcontent/daemon.sock}
REQUEST='{"jsonrpc":"2.0","id":1,"method":"status"}'
if command -v socat >/dev/null 2>&1; then
  printf '%s\n' "$REQUEST" | socat -t 5 - "UNIX-CONNECT:$SOCKET"
else
  printf '%s\n' "$REQUEST" | nc -U -q 5 "$SOCKET"
fi
