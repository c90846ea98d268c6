#!/usr/bin/env bash
# tools/package-test oci LAYOUT: the image run as a container runtime would run it (see tools/package-test).
set -euo pipefail
LAYOUT=$1
[ -f "$LAYOUT/index.json" ] || { echo "tools/package-test: no OCI layout at $LAYOUT (tools/package oci)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || exec sudo -E "$0" "$@"  # chroot and mount need root
cd "$(dirname "$0")/../.."
HOST_BIN=$(swift build --show-bin-path 2>/dev/null)/iapcontent
[ -x "$HOST_BIN" ] || { echo "tools/package-test: needs a build of iapcontent on this machine to author the sample catalog" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/iapcontent-oci-test.XXXXXX")
chmod 0755 "$WORK"  # the image user reaches the daemon socket through it
ROOTFS=$WORK/bundle/rootfs SERVE_PID="" DAEMON_PID=""
cleanup() {
  [ -n "$SERVE_PID" ] && kill "$SERVE_PID" 2>/dev/null || true
  [ -n "$DAEMON_PID" ] && kill "$DAEMON_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  for m in srv/site var/lib/iapcontent proc dev; do umount -l "$ROOTFS/$m" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
tag=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"])' "$LAYOUT/index.json")
umoci unpack --image "$LAYOUT:$tag" "$WORK/bundle" >/dev/null
chmod 0755 "$WORK/bundle"
user=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["process"]["user"]["uid"])' "$WORK/bundle/config.json")
[ "$user" = 65532 ] || { echo "tools/package-test: the image runs as uid $user, not the non-root 65532" >&2; exit 1; }

# The volumes: a signed catalog of the samples (authored on the host), and an empty store owned by the image's user.
"$HOST_BIN" pack ContentPackages/com.example.film.trailer --output "$WORK/archives" >/dev/null
"$HOST_BIN" keygen --output "$WORK/sign.key" | tail -n 1 >"$WORK/public-key"
"$HOST_BIN" catalog "$WORK/archives" --output "$WORK/site" --signing-key "$WORK/sign.key" >/dev/null
mkdir -p "$WORK/store" "$ROOTFS/srv/site" "$ROOTFS/proc" "$ROOTFS/dev"
chown 65532:65532 "$WORK/store"
mount --bind "$WORK/site" "$ROOTFS/srv/site"
mount --bind "$WORK/store" "$ROOTFS/var/lib/iapcontent"
mount -t proc proc "$ROOTFS/proc"
mount --bind /dev "$ROOTFS/dev"
before=$(find "$ROOTFS" -xdev -newer "$WORK/public-key" -not -path "$ROOTFS/var/lib/iapcontent*" -not -path "$ROOTFS/run/iapcontent*" | sort)
in_image() { (exec_in_image "$@"); }
# As the image's user, with the image's environment, replacing the shell: `exec_in_image … &` makes $! the program.
exec_in_image() {
  exec env -i PATH=/usr/bin IAPCONTENT_STORE=/var/lib/iapcontent XDG_RUNTIME_DIR=/run HOME=/var/lib/iapcontent \
    /usr/sbin/chroot --userspec=65532:65532 "$ROOTFS" /usr/bin/iapcontent "$@"
}

echo "== $(in_image --version) as uid 65532" >&2
exec_in_image serve /srv/site --port 0 >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVE_PID=$!
base=""
for _ in $(seq 100); do
  base=$(grep -m1 '^http://' "$WORK/serve.out" || true); [ -n "$base" ] && break; sleep 0.1
done
[ -n "$base" ] || { cat "$WORK/serve.err" >&2; echo "tools/package-test: serve printed no URL" >&2; exit 1; }
echo "== serve: $base; download into the store volume" >&2
in_image download com.example.film.trailer --catalog "${base}catalog.json" --public-key "$(cat "$WORK/public-key")" >/dev/null
in_image verify com.example.film.trailer
diff -r ContentPackages/com.example.film.trailer "$WORK/store/content/com.example.film.trailer" >/dev/null \
  || { echo "tools/package-test: the installed content differs from the sample" >&2; exit 1; }
in_image status >/dev/null
echo "== daemon on /run/iapcontent/daemon.sock" >&2
exec_in_image daemon --socket /run/iapcontent/daemon.sock --catalog "${base}catalog.json" >/dev/null 2>"$WORK/daemon.err" &
DAEMON_PID=$!
for _ in $(seq 100); do [ -S "$ROOTFS/run/iapcontent/daemon.sock" ] && break; sleep 0.1; done
[ -S "$ROOTFS/run/iapcontent/daemon.sock" ] || { cat "$WORK/daemon.err" >&2; echo "tools/package-test: no daemon socket" >&2; exit 1; }
reply=$(printf '{"jsonrpc":"2.0","id":1,"method":"status"}\n' | setpriv --reuid 65532 --regid 65532 --clear-groups /usr/bin/python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(sys.stdin.buffer.read())
print(s.makefile().readline().strip())' "$ROOTFS/run/iapcontent/daemon.sock")
case $reply in *'"result"'*) ;; *) echo "tools/package-test: the daemon answered $reply" >&2; exit 1;; esac
kill -TERM $DAEMON_PID; status=0; wait $DAEMON_PID || status=$?
[ $status = 0 ] || { cat "$WORK/daemon.err" >&2; echo "tools/package-test: the daemon exited $status on SIGTERM" >&2; exit 1; }
DAEMON_PID=""
kill "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null || true; SERVE_PID=""
after=$(find "$ROOTFS" -xdev -newer "$WORK/public-key" -not -path "$ROOTFS/var/lib/iapcontent*" -not -path "$ROOTFS/run/iapcontent*" | sort)
[ "$before" = "$after" ] || { echo "tools/package-test: the image wrote outside its volume:" >&2; comm -13 <(echo "$before") <(echo "$after") >&2; exit 1; }
echo "tools/package-test: the image served, downloaded, verified and ran the daemon as uid 65532, writing only its volumes" >&2
