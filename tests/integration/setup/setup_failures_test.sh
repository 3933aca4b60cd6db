#!/usr/bin/env bash
# scripts/setup under bad conditions, on a copy of the tracked tree with an empty cache:
#  1. no network and nothing cached: fails, naming what it could not fetch;
#  2. a checksum mismatch: fails loudly, removes the bad file, leaves no half-extracted tree;
#  3. a second run after the failure recovers, with our QuickJS patch applied; a patch that does
#     not apply fails loudly;
#  4. npm packages unreachable: fails naming the npm step.
# Loopback port 9 (discard) stands in for an unreachable archive and registry.
set -uo pipefail
SRC="$1"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$WORK/tree"
(cd "$SRC" && git ls-files -z | xargs -0 tar -cf - 2>/dev/null) | tar -xf - -C "$WORK/tree" ||
  fail "could not copy the tracked tree"
TREE="$WORK/tree"
REAL_CACHE="${AFFORDANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/affordance}"
. "$SRC/scripts/pins"
ORIG="${QUICKJS_SOURCE_PACKAGE}_${QUICKJS_VERSION}.orig.tar.xz"

# 1. No network, nothing cached.
out=$(AFFORDANCE_CACHE="$WORK/empty" AFFORDANCE_DEBIAN_URI=http://127.0.0.1:9/debian \
      "$TREE/scripts/setup" --only quickjs 2>&1) && fail "setup succeeded without network: $out"
grep -q "could not fetch the trixie source index (needed for QuickJS)" <<<"$out" ||
  fail "no-network message does not name what it could not fetch: $out"
[ ! -e "$TREE/third_party/quickjs" ] || fail "no-network run left third_party/quickjs behind"

# 2. Checksum mismatch: a cached tarball that does not match the pin.
mkdir -p "$WORK/cache/sources/quickjs"
cp "$REAL_CACHE/sources/quickjs/$ORIG" "$WORK/cache/sources/quickjs/" ||
  fail "real QuickJS tarball not cached (run scripts/setup first)"
sed "s/^QUICKJS_ORIG_SHA256=.*/QUICKJS_ORIG_SHA256=$(printf '0%.0s' {1..64})/" "$SRC/scripts/pins" \
  > "$WORK/bad-pins"
out=$(AFFORDANCE_CACHE="$WORK/cache" AFFORDANCE_PINS="$WORK/bad-pins" \
      AFFORDANCE_DEBIAN_URI=http://127.0.0.1:9/debian "$TREE/scripts/setup" --only quickjs 2>&1) &&
  fail "setup accepted a tarball with the wrong checksum"
grep -q "checksum mismatch for $ORIG" <<<"$out" || fail "mismatch not reported loudly: $out"
[ ! -e "$TREE/third_party/quickjs" ] && [ ! -e "$TREE/third_party/quickjs.partial" ] ||
  fail "checksum mismatch left a (half-)extracted tree"
[ ! -e "$WORK/cache/sources/quickjs/$ORIG" ] || fail "the mismatching tarball was kept in the cache"

# 3. Recovery: the next run, with the tarball fetched again (served from a copy here), succeeds.
cp "$REAL_CACHE/sources/quickjs/$ORIG" "$WORK/cache/sources/quickjs/"
AFFORDANCE_CACHE="$WORK/cache" "$TREE/scripts/setup" --only quickjs >/dev/null 2>&1 ||
  fail "setup did not recover after the failure"
[ -f "$TREE/third_party/quickjs/quickjs.c" ] || fail "recovered run did not extract QuickJS"
grep -q "CASE(OP_to_string)" "$TREE/third_party/quickjs/quickjs.c" ||
  fail "the extracted QuickJS does not have scripts/quickjs-hot-paths.patch applied"

# 3b. A patch that does not apply to the pinned sources fails loudly; the right one recovers.
PATCH="$TREE/scripts/quickjs-hot-paths.patch"
cp "$PATCH" "$WORK/good.patch"
sed -i 's/^ DEF(      to_object, 1, 1, 1, none)$/ DEF(      to_nothing, 1, 1, 1, none)/' "$PATCH"
out=$(AFFORDANCE_CACHE="$WORK/cache" "$TREE/scripts/setup" --only quickjs 2>&1) &&
  fail "setup accepted a patch that does not apply"
grep -q "could not apply quickjs-hot-paths.patch" <<<"$out" || fail "patch failure not named: $out"
cp "$WORK/good.patch" "$PATCH"
AFFORDANCE_CACHE="$WORK/cache" "$TREE/scripts/setup" --only quickjs >/dev/null 2>&1 ||
  fail "setup did not recover with the right patch"
grep -q "CASE(OP_to_string)" "$TREE/third_party/quickjs/quickjs.c" ||
  fail "recovered run did not apply the patch"

# 4. npm registry unreachable and no npm cache.
out=$(npm_config_registry=http://127.0.0.1:9/ npm_config_cache="$WORK/npm-cache" \
      npm_config_fetch_retries=0 AFFORDANCE_CACHE="$WORK/cache" \
      "$TREE/scripts/setup" --only tools 2>&1) && fail "npm step succeeded without a registry"
grep -q "npm ci failed in tools/" <<<"$out" || fail "npm failure not named: $out"

echo "setup failure modes: 5 passed, 0 failed"
