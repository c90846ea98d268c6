# Sourced by tools/bench-delta --real: updates of real small-file content nobody here wrote, against rsync.
#
# The corpus: the `django/` folder of three Django sdists from PyPI (a patch release, the one after it, and the next
# minor release: ~3 650 files, 33 MB of Python sources, templates and translation catalogs for ~100 languages — the
# shape of a game's scripts and localisation), fetched once with `pip download` into $CACHE. The one file starting
# with `#!` (validate refuses executable code in hosted content) is left out of every version alike.
# Per update (old → new), in the same run: the bytes nginx served for the update (archive ranges, manifests and
# patches, headers included) with the patch `iapcontent patch` writes offered in the catalog, and without it; the
# patch's own bytes; `rsync -az --no-whole-file --stats` from the new folder onto a copy of the old one (its "Total
# bytes sent"); the changed files' bytes raw and each compressed alone with zstd -19. Then, for the newest version,
# the archive `pack` writes against the one-frame archive of the same tree (`pack --single-frame`), and the same with
# `pack --dictionary` (a dictionary trained on the small files, stored in the archive); each update is also run
# between archives packed with a dictionary, without a patch.

REAL_VERSIONS=${REAL_VERSIONS:-"5.1.3 5.1.4 5.2"}

# real_corpus <dir>: one content folder per version in <dir>/dj-<version>.
real_corpus() {
  local out=$1 cache=${XDG_CACHE_HOME:-$HOME/.cache}/iapcontent-bench/django v
  mkdir -p "$cache" "$out"
  for v in $REAL_VERSIONS; do
    [ -f "$cache/Django-$v.tar.gz" ] || [ -f "$cache/django-$v.tar.gz" ] ||
      python3 -m pip download --quiet "django==$v" --no-deps --no-binary :all: -d "$cache" >&2
    local sdist; sdist=$(ls "$cache"/[Dd]jango-"$v".tar.gz)
    rm -rf "$out/src-$v" "$out/dj-$v"; mkdir -p "$out/src-$v" "$out/dj-$v"
    tar -xzf "$sdist" -C "$out/src-$v"
    mv "$out/src-$v"/*/django "$out/dj-$v/Contents"; rm -rf "$out/src-$v"
    grep -rlI '^#!' "$out/dj-$v/Contents" | xargs -r rm -f
    python3 - "$out/dj-$v/ContentInfo.plist" "$v" <<'PY'
import plistlib, sys
plistlib.dump({"IAPProductIdentifier": "com.example.django", "ContentVersion": sys.argv[2]}, open(sys.argv[1], "wb"), fmt=plistlib.FMT_BINARY)
PY
  done
}

# real_served_since <line>: bytes nginx sent (headers included) for archives, manifests and patches after that log line.
real_served_since() { tail -n +"$(( $1 + 1 ))" "$NGINX_ACCESS_LOG" | awk '$1 ~ /archives|manifests|patches/ {s += $3} END {print s + 0}'; }

# real_update <work> <old> <new> <label> <with-patch 0|1> [packed folder]: installs <old>, publishes <new> (with the
# patch when asked), updates, prints the bytes served; checks the result is <new> byte for byte.
real_update() {
  local w=$1 old=$2 new=$3 label=$4 patched=$5 site=$1/site-$4-$5 store=$1/store-$4-$5 packed=${6:-$1/packed}
  rm -rf "$site" "$store" "$w/in"; mkdir -p "$w/in"
  cp "$packed/com.example.django-$old".* "$w/in/"
  "$BIN" catalog "$w/in" --output "$site" >/dev/null
  nginx_start "$site" "$w/ngx-$label-$patched"
  local catalog="http://127.0.0.1:$NGINX_PORT/catalog.json"
  "$BIN" download com.example.django --catalog "$catalog" --store "$store" >/dev/null
  cp "$packed/com.example.django-$new".* "$w/in/"
  [ "$patched" = 1 ] && cp "$w/packed/com.example.django-$old-to-$new.patch" "$w/in/"
  "$BIN" catalog "$w/in" --output "$site" >/dev/null
  local before; before=$(wc -l < "$NGINX_ACCESS_LOG")
  "$BIN" download com.example.django --catalog "$catalog" --store "$store" >/dev/null
  real_served_since "$before"
  diff -r "$w/dj-$new" "$store/content/com.example.django" >/dev/null || { echo "the update to $new differs from $new" >&2; exit 1; }
  nginx_stop; rm -rf "$site" "$store"
}

run_real() {
  local w=$WORK/real versions=($REAL_VERSIONS)
  mkdir -p "$w/packed"
  echo "== real content: Django $REAL_VERSIONS from PyPI" >&2
  real_corpus "$w"
  local v
  for v in "${versions[@]}"; do
    "$BIN" pack "$w/dj-$v" --output "$w/packed" >/dev/null
    "$BIN" pack "$w/dj-$v" --dictionary --output "$w/dictionary" >/dev/null 2>&1
  done
  local newest=${versions[-1]}
  note "real: files in $newest" "$(find "$w/dj-$newest" -type f | wc -l)"
  note "real: bytes in $newest" "$(du -sb --apparent-size "$w/dj-$newest" | cut -f1)"
  mkdir -p "$w/single"
  "$BIN" pack "$w/dj-$newest" --single-frame --output "$w/single" >/dev/null
  local archive single
  archive=$(stat -c %s "$w/packed/com.example.django-$newest.tar.zst"); single=$(stat -c %s "$w/single/com.example.django-$newest.tar.zst")
  note "real: archive bytes ($newest)" "$archive"
  note "real: one-frame archive bytes ($newest)" "$single"
  note "real: archive / one-frame" "$(python3 -c "print(round($archive / $single, 4))")"
  local with_dictionary; with_dictionary=$(stat -c %s "$w/dictionary/com.example.django-$newest.tar.zst")
  note "real: archive with --dictionary bytes ($newest)" "$with_dictionary"
  note "real: archive with --dictionary / one-frame" "$(python3 -c "print(round($with_dictionary / $single, 4))")"
  local i
  for (( i = 1; i < ${#versions[@]}; i++ )); do
    local old=${versions[i-1]} new=${versions[i]} label="${versions[i-1]}→${versions[i]}"
    echo "== real: $label" >&2
    "$BIN" patch "$w/dj-$old" "$w/dj-$new" --old-manifest "$w/packed/com.example.django-$old.manifest" \
      --new-manifest "$w/packed/com.example.django-$new.manifest" --output "$w/packed" >/dev/null
    note "real $label: changed files" "$(python3 - "$w/dj-$old" "$w/dj-$new" <<'PY'
import filecmp, os, subprocess, sys
old, new = sys.argv[1], sys.argv[2]
count = raw = alone = 0
for top, _, files in os.walk(new):
    for name in files:
        path = os.path.join(top, name); ref = os.path.join(old, os.path.relpath(path, new))
        if os.path.exists(ref) and filecmp.cmp(path, ref, shallow=False): continue
        count += 1; raw += os.path.getsize(path)
        alone += len(subprocess.run(["zstd", "-19", "-q", "-c", path], capture_output=True, check=True).stdout)
print(f"{count} files, {raw} bytes raw, {alone} bytes each zstd -19 alone")
PY
)"
    note "real $label: patch bytes" "$(stat -c %s "$w/packed/com.example.django-$old-to-$new.patch")"
    note "real $label: fetched with the patch offered" "$(real_update "$w" "$old" "$new" "$i" 1)"
    note "real $label: fetched without a patch" "$(real_update "$w" "$old" "$new" "$i" 0)"
    note "real $label: fetched without a patch, packed with --dictionary" "$(real_update "$w" "$old" "$new" "$i-dict" 0 "$w/dictionary")"
    rm -rf "$w/rsync"; cp -a "$w/dj-$old" "$w/rsync"
    note "real $label: rsync -az --no-whole-file bytes sent" \
      "$(rsync -az --no-whole-file --stats "$w/dj-$new/" "$w/rsync/" | awk -F': ' '/Total bytes sent/ {gsub(",", "", $2); print $2}')"
    rm -rf "$w/rsync"
  done
}
