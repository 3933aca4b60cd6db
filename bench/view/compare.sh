#!/usr/bin/env bash
# Side-by-side: bench/view/view_bench (QuickJS, per-View sandbox, C++ nodes) and
# bench/view/node_peer.mjs (the same runtime library and transformed view in Node/V8, JS only),
# run back to back. Prints CPU-time medians of 3 repetitions for view_bench.
# usage: bench/view/compare.sh <build dir>      (e.g. build-release)
set -euo pipefail
build="${1:-build-release}"
cd "$(dirname "$0")/../.."
"$build/bench/view/view_bench" --benchmark_min_time=0.5 --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true 2>/dev/null | grep -E "median|Benchmark|---"
node bench/view/node_peer.mjs
node --jitless bench/view/node_peer.mjs 2>/dev/null
