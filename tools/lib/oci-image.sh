# tools/package oci: an OCI image of the shipping build, made with umoci (no container daemon).
#
# The root file system holds the program, exactly the shared libraries it loads (the `ldd` closure, each taken from
# its Debian package, which the SBOM names with its version), the CA certificates, a passwd/group naming the
# non-root user `iapcontent` (65532), /tmp, and the store folder /var/lib/iapcontent owned by that user and declared a
# volume. The image runs as that user; the entry point is the program, so `docker run IMAGE serve /srv/site --host
# 0.0.0.0` and `… daemon --socket /run/iapcontent/daemon.sock` both work. Every file's time is SOURCE_DATE_EPOCH and
# the image's `created` too, so one commit gives one digest.
# Sourced by tools/package with BIN, VERSION, OUT, WORK and SOURCE_DATE_EPOCH set.

oci_rootfs() {  # $1: the folder to fill
  local rootfs=$1 lib
  install -D -m 0755 "$BIN" "$rootfs/usr/bin/iapcontent"
  strip --strip-unneeded --remove-section=.comment --remove-section=.note "$rootfs/usr/bin/iapcontent"
  # The loader and every library the program loads, at the path it is loaded from: what it links, and what it
  # loads on first use (tools/lib/lazy-libraries.sh) with what those link.
  . tools/lib/lazy-libraries.sh
  local lazy; lazy=$(lazy_library_paths)
  for lib in $({ ldd "$BIN"; for lib in $lazy; do printf '\t%s => %s\n' "$lib" "$lib"; ldd "$lib"; done; } \
      | awk '/=> \// { print $3 } /^\t\/lib/ { print $1 }' | sort -u); do
    install -D -m 0644 "$(readlink -f "$lib")" "$rootfs$lib"
    echo "$lib" >>"$WORK/libraries"
  done
  chmod 0755 "$rootfs"/lib*/ld-linux* "$rootfs"/lib64/ld-linux* 2>/dev/null || true
  oci_trim_icu_data "$rootfs"
  install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
  install -d -m 1777 "$rootfs/tmp"
  install -d -m 0755 "$rootfs/var/lib/iapcontent" "$rootfs/run/iapcontent"
  printf 'root:x:0:0:root:/root:/usr/sbin/nologin\niapcontent:x:65532:65532:iapcontent:/var/lib/iapcontent:/usr/sbin/nologin\n' \
    >"$rootfs/etc/passwd"
  printf 'root:x:0:\niapcontent:x:65532:\n' >"$rootfs/etc/group"
}

# libarchive links libxml2 (for XAR, which iapcontent never reads), and libxml2 links ICU, whose data library is
# 30 MB. In the image that library is rebuilt from its own data, trimmed as the program's is (tools/lib/icu-trim.py:
# the root and English locales, the tables that are not per locale, the single-byte converters): same file name,
# same soname, same one symbol; the SBOM says so.
oci_trim_icu_data() {  # $1: the root file system
  local rootfs=$1 lib symbol value size offset dir
  lib=$(cd "$rootfs" && { find usr/lib lib -name 'libicudata.so.*' 2>/dev/null || true; } | sort | head -1)
  [ -n "$lib" ] || return 0
  read -r symbol value size < <(readelf --dyn-syms -W "$rootfs/$lib" \
    | awk '$8 ~ /^icudt[0-9]+_dat$/ && $4 == "OBJECT" { print $8, $2, $3 }')
  [ -n "${symbol:-}" ] || { echo "tools/package: $lib defines no icudt*_dat" >&2; return 1; }
  offset=$(readelf -S -W "$rootfs/$lib" | python3 -c '
import re, sys
value = int(sys.argv[1], 16)
for line in sys.stdin:  # [Nr] Name Type Address Off Size ...: the section holding the symbol
    m = re.search(r"\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", line)
    if m and int(m.group(2), 16) <= value < int(m.group(2), 16) + int(m.group(4), 16):
        print(value - int(m.group(2), 16) + int(m.group(3), 16)); break' "$value")
  dir=$WORK/icu
  mkdir -p "$dir"
  dd if="$rootfs/$lib" of="$dir/full.dat" iflag=skip_bytes,count_bytes skip="$offset" count=$((size)) bs=1M status=none
  python3 tools/lib/icu-trim.py "$dir/full.dat" "$dir/trimmed.dat" 2>&1 | sed "s|^|$lib: |" >&2
  printf '    .section .rodata\n    .globl %s\n    .type %s, @object\n    .balign 16\n%s:\n    .incbin "%s"\n    .size %s, . - %s\n    .section .note.GNU-stack,"",@progbits\n' \
    "$symbol" "$symbol" "$symbol" "$dir/trimmed.dat" "$symbol" "$symbol" >"$dir/data.S"
  "$(dirname "$(readlink -f "$(command -v swift)")")/clang" -shared -nostdlib -fuse-ld=lld \
    -Wl,-soname,"$(basename "$(readelf -d "$rootfs/$lib" | sed -n 's/.*soname: \[\(.*\)\]/\1/p')")" \
    -Wl,--build-id=none -o "$dir/$(basename "$lib")" "$dir/data.S"
  install -m 0644 "$dir/$(basename "$lib")" "$rootfs/$lib"
  echo "$lib" >"$WORK/trimmed-icu"
}

# The SBOM (SPDX 2.3, JSON): the program, the Swift packages linked into it, the Debian packages of the libraries.
oci_sbom() {  # $1: output file
  python3 - "$1" "$VERSION" "$SOURCE_DATE_EPOCH" "$WORK/libraries" "$WORK/trimmed-icu" <<'PY'
import json, subprocess, sys, datetime, os
out, version, epoch, libraries, trimmed_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
packages = [{"SPDXID": "SPDXRef-iapcontent", "name": "iapcontent", "versionInfo": version,
             "downloadLocation": "NOASSERTION", "filesAnalyzed": False}]
resolved = json.load(open("Package.resolved")) if os.path.exists("Package.resolved") else {"pins": []}
for pin in sorted(resolved.get("pins", []), key=lambda p: p["identity"]):
    packages.append({"SPDXID": "SPDXRef-swift-" + pin["identity"], "name": pin["identity"],
                     "versionInfo": pin["state"].get("version") or pin["state"].get("revision"),
                     "downloadLocation": pin["location"], "filesAnalyzed": False})
debs = set()
for lib in open(libraries).read().split():
    owner = subprocess.run(["dpkg", "-S", os.path.realpath(lib)], capture_output=True, text=True).stdout
    if not owner:
        owner = subprocess.run(["dpkg", "-S", lib], capture_output=True, text=True).stdout
    if owner:
        debs.add(owner.split(":")[0].split(",")[0].strip())
trimmed = open(trimmed_path).read().split() if os.path.exists(trimmed_path) else []
trimmed_debs = {}
for lib in trimmed:
    owner = subprocess.run(["dpkg", "-S", os.path.realpath("/" + lib)], capture_output=True, text=True).stdout
    if owner:
        trimmed_debs[owner.split(":")[0].split(",")[0].strip()] = lib
for deb in sorted(debs):
    v = subprocess.run(["dpkg-query", "-W", "-f=${Version}", deb], capture_output=True, text=True).stdout
    package = {"SPDXID": "SPDXRef-deb-" + deb.replace("+", "-").replace(".", "-"), "name": deb,
               "versionInfo": v, "downloadLocation": "NOASSERTION", "filesAnalyzed": False,
               "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                                 "referenceLocator": f"pkg:deb/debian/{deb}@{v}"}]}
    if deb in trimmed_debs:
        package["comment"] = (f"/{trimmed_debs[deb]} is rebuilt from this package's ICU data, trimmed to the root and "
                              "English locales, the tables that are not per locale and the single-byte converters "
                              "(tools/lib/icu-trim.py)")
    packages.append(package)
created = datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
doc = {"spdxVersion": "SPDX-2.3", "dataLicense": "CC0-1.0", "SPDXID": "SPDXRef-DOCUMENT",
       "name": f"iapcontent-{version}-image", "documentNamespace": f"https://iapcontent.invalid/spdx/{version}-{epoch}",
       "creationInfo": {"created": created, "creators": ["Tool: tools/package"]}, "packages": packages,
       "relationships": [{"spdxElementId": "SPDXRef-iapcontent", "relationshipType": "DEPENDS_ON",
                          "relatedSpdxElement": p["SPDXID"]} for p in packages[1:]]}
json.dump(doc, open(out, "w"), indent=1, sort_keys=True)
PY
}

oci_image() {
  local layout=$OUT/iapcontent-oci tag=$VERSION created
  created=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
  rm -rf "$layout" "$WORK/bundle"
  umoci init --layout "$layout"
  umoci new --image "$layout:$tag"
  umoci unpack --image "$layout:$tag" "$WORK/bundle" >/dev/null  # as root: the layer keeps owners (65532)
  oci_rootfs "$WORK/bundle/rootfs"
  chown -R 0:0 "$WORK/bundle/rootfs"
  chown 65532:65532 "$WORK/bundle/rootfs/var/lib/iapcontent" "$WORK/bundle/rootfs/run/iapcontent"
  find "$WORK/bundle/rootfs" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
  umoci repack --image "$layout:$tag" --history.created "$created" --history.created_by "tools/package oci" \
    --history.comment "iapcontent $VERSION" "$WORK/bundle"
  umoci config --no-history --image "$layout:$tag" --created "$created" --author "iapcontent developers" \
    --config.user 65532:65532 --config.entrypoint /usr/bin/iapcontent --config.cmd --help \
    --config.env IAPCONTENT_STORE=/var/lib/iapcontent --config.env XDG_RUNTIME_DIR=/run \
    --config.volume /var/lib/iapcontent --config.workingdir /var/lib/iapcontent \
    --config.label "org.opencontainers.image.version=$VERSION" \
    --config.label "org.opencontainers.image.created=$created"
  umoci gc --layout "$layout"
  oci_sbom "$OUT/iapcontent-oci.spdx.json"
  local digest size
  digest=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["manifests"][0]["digest"])' "$layout/index.json")
  size=$(du -sb "$layout/blobs" | cut -f1)
  echo "$layout:$tag digest $digest, $size bytes of blobs (compressed); SBOM $OUT/iapcontent-oci.spdx.json" >&2
  echo "$layout"
}
