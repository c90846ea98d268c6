# The shared libraries iapcontent loads on first use (Sources/CLazyLibrary): not in its ELF NEEDED list, so `ldd` and
# dpkg-shlibdeps do not see them. Their sonames come from the forwarders' `struct lazy_library` definitions.
# Sourced by tools/package (the .deb's Depends) and tools/lib/oci-image.sh (the image's libraries).

lazy_library_sonames() {
  grep -rhoE 'struct lazy_library [A-Za-z_]+ = \{"[^"]+"' Sources | sed 's/.*{"//; s/"$//' | sort -u
}

lazy_library_paths() {  # the file each soname loads from on this machine
  local soname path
  for soname in $(lazy_library_sonames); do
    path=$(/sbin/ldconfig -p | awk -v s="$soname" '$1 == s && /x86-64|AArch64|aarch64/ { print $NF; exit }')
    [ -n "$path" ] || path=$(/sbin/ldconfig -p | awk -v s="$soname" '$1 == s { print $NF; exit }')
    [ -n "$path" ] || { echo "lazy-libraries: $soname is not installed" >&2; return 1; }
    echo "$path"
  done
}

# A stand-in program that links every lazily loaded library: given to dpkg-shlibdeps beside the real one, it makes
# Depends name their packages.
lazy_library_stand_in() {  # $1: the file to write
  local flags=() soname
  for soname in $(lazy_library_sonames); do flags+=("-l:$soname"); done
  printf 'int main(void) { return 0; }\n' | cc -x c - -o "$1" -Wl,--no-as-needed "${flags[@]}"
}
