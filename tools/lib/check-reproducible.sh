#!/usr/bin/env bash
# tools/lib/check-reproducible.sh — what `tools/release-build --check-reproducible` runs: is what ships a function
# of the commit alone?
#
# Builds the checkout's commit twice from nothing and packages both builds (`tools/package deb` and `oci`), varying
# what a distribution's rebuilder varies (reprotest's variations, done here directly: fewer moving parts than
# reprotest's virtual servers, and the same on any machine with the build's own tools):
#
#                 build 1                                  build 2
#   source        a clone at  <tmp>/a/iapcontent           a clone at  <tmp>/second/clone-with-a-longer-name
#   scratch       the clone's .build/shipping/.build       <tmp>/elsewhere/scratch (RELEASE_SCRATCH)
#   TZ            Etc/GMT+12                               Etc/GMT-14 (a calendar day apart)
#   LANG, LC_ALL  C.UTF-8                                  fr_FR.UTF-8 or tr_TR.UTF-8 when installed, else C
#   umask         022                                      077
#   time          one build after the other: a quarter of an hour apart or more
#
# Then compares the programs' SHA-256, the .debs' SHA-256 and the OCI images' digests. The same: prints them and
# removes the two builds. Different: lists the programs' sections that differ, runs diffoscope (installed when
# missing: Debian's diffoscope-minimal) on the .debs and on the images' layers that differ, prints where its reports
# are, and keeps both builds for a look.
#
# The commit, not the working tree: uncommitted changes are not in the clones (a warning says so). The checkout's
# Package.resolved, when it has one, is copied into both clones, so they build the dependency versions a shipping
# build of this checkout would.
#
# Two cold shipping builds and their packages: about half an hour on 2 cores. Run from the checkout's root.
set -euo pipefail
CHECKOUT=$PWD
for tool in git dpkg-deb dpkg-shlibdeps lintian fakeroot patchelf umoci; do
  command -v "$tool" >/dev/null || { echo "tools/release-build: --check-reproducible needs $tool (tools/setup installs it)" >&2; exit 1; }
done
commit=$(git rev-parse HEAD)
[ -z "$(git status --porcelain --untracked-files=no -- .)" ] \
  || echo "tools/release-build: the working tree has uncommitted changes; checking the commit $commit without them" >&2
WORK=$(mktemp -d "${TMPDIR:-/tmp}/iapcontent-repro.XXXXXX")
other_locale=$(locale -a 2>/dev/null | grep -i -m1 -E '^(fr_FR|tr_TR)\.utf-?8$' || echo C)

# build <n> <clone> <scratch or ""> <TZ> <locale> <umask>: clone, build, package; writes $WORK/<n>.sums
build() {
  local n=$1 src=$2 scratch=$3 tz=$4 loc=$5 mask=$6 log=$WORK/$1.log
  mkdir -p "$(dirname "$src")"
  git clone -q --no-checkout "$CHECKOUT" "$src"
  git -C "$src" checkout -q --detach "$commit"
  [ ! -f "$CHECKOUT/Package.resolved" ] || cp "$CHECKOUT/Package.resolved" "$src/Package.resolved"
  echo "build $n: $src${scratch:+, scratch $scratch}, TZ=$tz, LC_ALL=$loc, umask $mask (log: $log)" >&2
  # In a subshell: the umask and the variables are this build's only. RELEASE_SCRATCH empty = the default folder.
  ( cd "$src"
    umask "$mask"
    export TZ=$tz LANG=$loc LC_ALL=$loc
    if [ -n "$scratch" ]; then export RELEASE_SCRATCH=$scratch; else unset RELEASE_SCRATCH; fi
    bin=$(tools/release-build --quiet)
    # Each prints what it made on its last line of output.
    deb=$(tools/package deb --skip-build --output "$WORK/$n/dist" | tail -n 1)
    layout=$(tools/package oci --skip-build --output "$WORK/$n/dist" | tail -n 1)
    printf '%s %s\n%s %s\n%s %s\n' \
      program "$(sha256sum "$bin/iapcontent" | cut -d' ' -f1)" \
      deb "$(sha256sum "$deb" | cut -d' ' -f1)" \
      image "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["manifests"][0]["digest"])' "$layout/index.json")" \
      >"$WORK/$n.sums"
    printf '%s\n%s\n%s\n' "$bin/iapcontent" "$deb" "$layout" >"$WORK/$n.paths"
  ) >"$log" 2>&1 || { tail -n 30 "$log" >&2; echo "tools/release-build: build $n failed (log: $log)" >&2; exit 1; }
  sed "s/^/build $n: /" "$WORK/$n.sums" >&2
}
build 1 "$WORK/a/iapcontent" "" Etc/GMT+12 C.UTF-8 022
build 2 "$WORK/second/clone-with-a-longer-name" "$WORK/elsewhere/scratch" Etc/GMT-14 "$other_locale" 077

if cmp -s "$WORK/1.sums" "$WORK/2.sums"; then
  echo "tools/release-build: reproducible: commit $commit"
  sed 's/^/  /' "$WORK/1.sums"
  # The image's files are root's when tools/package made it through sudo.
  rm -rf "$WORK" 2>/dev/null || sudo rm -rf "$WORK"
  # And the two source copies tools/release-build made in /tmp for these builds (their .build links point in $WORK).
  for copy in /tmp/iapcontent-shipping-*; do
    case $(readlink "$copy/.build" 2>/dev/null) in "$WORK"/*) rm -rf "$copy";; esac
  done
  exit 0
fi

# Different: say where, with diffoscope (Debian's diffoscope-minimal: enough for ELF, .deb, tar and JSON).
if ! command -v diffoscope >/dev/null; then
  echo "tools/release-build: installing diffoscope (diffoscope-minimal) to show the differences" >&2
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends diffoscope-minimal >&2
fi
echo "tools/release-build: NOT reproducible: commit $commit" >&2
paste -d' ' "$WORK/1.sums" "$WORK/2.sums" | awk '{ printf "  %-8s %s %s %s\n", $1, $2, $4, ($2 == $4 ? "same" : "DIFFERENT") }' >&2
mapfile -t one <"$WORK/1.paths"; mapfile -t two <"$WORK/2.paths"
# The programs' sections that differ, and by how many bytes: seconds, where diffoscope on two unstripped programs of
# 120 MB runs for a long time.
if ! cmp -s "${one[0]}" "${two[0]}"; then
  echo "  program: sections that differ (name, sizes, bytes that differ):" >&2
  for section in $(readelf -SW "${one[0]}" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) .*/\1/p'); do
    objcopy --dump-section "$section=$WORK/section.1" "${one[0]}" /dev/null 2>/dev/null || continue
    objcopy --dump-section "$section=$WORK/section.2" "${two[0]}" /dev/null 2>/dev/null || : >"$WORK/section.2"
    cmp -s "$WORK/section.1" "$WORK/section.2" \
      || echo "    $section $(stat -c %s "$WORK/section.1") $(stat -c %s "$WORK/section.2") $(cmp -l "$WORK/section.1" "$WORK/section.2" 2>/dev/null | wc -l)" >&2
  done
  rm -f "$WORK/section.1" "$WORK/section.2"
fi
# Of an image, the layer: the layout's files are named by their digests, so its folders compare name against name.
layer() { python3 - "$1" <<'PY'
import json, sys
layout = sys.argv[1]
blob = lambda digest: f"{layout}/blobs/{digest.replace(':', '/')}"
manifest = json.load(open(blob(json.load(open(f"{layout}/index.json"))["manifests"][0]["digest"])))
print(blob(manifest["layers"][0]["digest"]))
PY
}
# diffoscope on the packages (their programs are stripped), without disassembling or dumping debug information
# (long on a program this size; a difference there shows in the sections above and in the symbols and strings
# diffoscope still compares), and at most 20 minutes each.
kinds=(deb image)
pairs=("${one[1]}" "${two[1]}" "$(layer "${one[2]}")" "$(layer "${two[2]}")")
for i in 0 1; do
  [ "$(sed -n "$((i + 2))p" "$WORK/1.sums")" != "$(sed -n "$((i + 2))p" "$WORK/2.sums")" ] || continue
  report=$WORK/diffoscope-${kinds[$i]}.txt
  # Exit status 1 means "they differ", which is known; the report is what is wanted.
  timeout 20m diffoscope --text "$report" --max-report-size 20000000 \
    --exclude-command '^objdump' --exclude-command '^readelf.*--debug-dump' \
    "${pairs[$((2 * i))]}" "${pairs[$((2 * i + 1))]}" >/dev/null 2>&1 || true
  echo "  ${kinds[$i]}: diffoscope report $report; its first lines:" >&2
  grep -m 40 -E '^(│|├|--- |\+\+\+ )' "$report" 2>/dev/null | cut -c1-200 | sed 's/^/    /' >&2 || true
done
echo "tools/release-build: both builds kept in $WORK" >&2
exit 1
