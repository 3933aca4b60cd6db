# Shared shell helpers for scripts/setup and scripts/test. Sourced, not executed.

step() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
step_quiet() { [ -t 2 ] && printf '==> %s\n' "$*" >&2 || true; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }
sha256() { sha256sum "$1" | cut -d' ' -f1; }

# The Debian archive URI this machine's apt already uses (never hard-coded, never changed).
debian_archive_uri() {
  local uri
  uri=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null |
        awk '{print $2}' | grep -v -- '-security' | head -n1)
  if [ -z "$uri" ]; then
    uri=$(grep -hsE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
          sed -E 's/\[[^]]*\]//' | awk '{print $2}' | grep -v -- '-security' | head -n1)
  fi
  [ -n "$uri" ] && echo "$uri"
}

# The file name `npm pack name@version` writes (scope flattened: @a/b@1 -> a-b-1.tgz).
npm_pack_name() {
  local spec="$1" name version
  name="${spec%@*}"; version="${spec##*@}"
  name="${name#@}"; name="${name//\//-}"
  echo "$name-$version.tgz"
}

# extract_tarball ARCHIVE DEST STRIP: extracts into a temporary sibling, then swaps it in, so an
# interrupted or failed extraction never leaves a half-extracted DEST.
extract_tarball() {
  local archive="$1" dest="$2" strip="$3" tmp
  tmp="$dest.partial"
  rm -rf "$tmp"; mkdir -p "$tmp"
  tar -xf "$archive" -C "$tmp" --strip-components="$strip" ||
    { rm -rf "$tmp"; die "could not extract $(basename "$archive")"; }
  rm -rf "$dest"; mv "$tmp" "$dest"
}

# The build directory of a CMake preset.
preset_dir() {
  case "$1" in
    default) echo "$ROOT/build" ;;
    *) echo "$ROOT/build-$1" ;;
  esac
}

# A compiler cache for every build these scripts run, when ccache is installed (setup installs it):
# kept with the other caches ($CACHE/ccache), keyed relative to the checkout (CCACHE_BASEDIR,
# no directory in the hash), so a second clone of the same sources, anywhere on this machine,
# compiles from the cache. A launcher the caller already chose is kept; AFFORDANCE_NO_CCACHE=1
# turns it off.
use_compiler_cache() {
  [ -z "${AFFORDANCE_NO_CCACHE:-}" ] || return 0
  command -v ccache >/dev/null 2>&1 || return 0
  export CCACHE_DIR="${CCACHE_DIR:-$CACHE/ccache}"
  export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=true
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:-time_macros,include_file_mtime,include_file_ctime}"
  export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-20G}"
  export CMAKE_C_COMPILER_LAUNCHER="${CMAKE_C_COMPILER_LAUNCHER:-ccache}"
  export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}"
}
