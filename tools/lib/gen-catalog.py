#!/usr/bin/env python3
"""Writes a catalog folder of N generated products, as `iapcontent catalog` lays it out (tools/bench-repo).

    gen-catalog.py N OUT [VERSION] [FIRST] [REAL]

Each product gets a tiny archive and manifest (their bytes do not matter to the repository: it hashes them) and a
catalog entry of the usual size: product IDs of 32 characters, one mirror, sizes and a manifest reference.
FIRST (default 0) is the number of the first product, so a second call can write one new version of one product.
REAL, a catalog folder `iapcontent catalog` wrote, puts its products (real archives and manifests, copied in) first,
so a client can install one of them from the generated store.
"""
import hashlib, json, os, shutil, sys

n, out = int(sys.argv[1]), sys.argv[2]
version = sys.argv[3] if len(sys.argv) > 3 else "1.0"
first = int(sys.argv[4]) if len(sys.argv) > 4 else 0
os.makedirs(f"{out}/archives", exist_ok=True)
os.makedirs(f"{out}/manifests", exist_ok=True)
products = []
if len(sys.argv) > 5:
    real = sys.argv[5]
    for entry in json.load(open(f"{real}/catalog.json"))["products"]:
        for path in [entry["path"]] + ([entry["manifest"]["path"]] if entry.get("manifest") else []):
            shutil.copyfile(f"{real}/{path}", f"{out}/{path}")
        products.append(entry)
for i in range(first, first + n):
    pid = f"com.example.store.product{i:07d}"
    archive, manifest = f"archive {pid} {version}".encode(), f"manifest {pid} {version}".encode()
    a, m = hashlib.sha256(archive).hexdigest(), hashlib.sha256(manifest).hexdigest()
    with open(f"{out}/archives/{a}.tar.zst", "wb") as f:
        f.write(archive)
    with open(f"{out}/manifests/{m}.manifest", "wb") as f:
        f.write(manifest)
    products.append({
        "productID": pid, "contentIdentifier": pid, "contentVersion": version, "path": f"archives/{a}.tar.zst",
        "length": len(archive), "sha256": a, "uncompressedSize": 123456789, "entryCount": 1234, "format": "tar.zst",
        "manifest": {"path": f"manifests/{m}.manifest", "length": len(manifest), "sha256": m}})
with open(f"{out}/catalog.json", "w") as f:
    json.dump({"schema": 1, "catalogVersion": 1, "baseURLs": ["https://mirror.example.net/iap"], "products": products},
              f, indent=2, sort_keys=True)
