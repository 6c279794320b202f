#!/usr/bin/env bash
# PyTorch's MemoryViz.js renders gpumemsim's exported snapshots in headless Chromium
# (memoryviz.py): the Active Memory Timeline of an ideal and a caching run (no JavaScript
# error, a polygon per allocation, the y axis topping out at the run's peak, a plot in the
# screenshot) and the Allocator State History of a caching, an expandable-segments and a
# swapping run (an event line per event, a rectangle per final segment, the reserved bytes
# MemoryViz.js shows after the first, a middle and the last event equal to the trace's).
# Needs what the repository does not hold (tests/browser/README.md): GMS_MEMORYVIZ_JS (torch's
# torch/utils/viz/MemoryViz.js), GMS_D3_JS (d3 5.x's dist/d3.js) and Chromium (GMS_CHROMIUM,
# or chromium on PATH). Without them: "NOT RUN: why", exit 77 (CTest: Skipped).
set -u
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
chrome=${GMS_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
why=""
if [ -z "${GMS_MEMORYVIZ_JS:-}" ] || [ ! -f "${GMS_MEMORYVIZ_JS:-}" ]; then
  why="GMS_MEMORYVIZ_JS does not name PyTorch's torch/utils/viz/MemoryViz.js (not in torch wheels)"
elif [ -z "${GMS_D3_JS:-}" ] || [ ! -f "${GMS_D3_JS:-}" ]; then
  why="GMS_D3_JS does not name d3 5.x's dist/d3.js (MemoryViz.js imports d3@5)"
elif [ -z "$chrome" ] || [ ! -x "$chrome" ]; then
  why="no Chromium (install Debian's chromium, or set GMS_CHROMIUM)"
elif ! command -v python3 > /dev/null; then
  why="no python3"
fi
if [ -n "$why" ]; then
  echo "NOT RUN: $why; see tests/browser/README.md"
  exit 77
fi
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1
S="$GMS_SOURCE_DIR/traces/samples"
run() { # NAME TRACE ARGS...: sim --json and --memory-snapshot NAME.pickle
  local name=$1 tr=$2; shift 2
  "$GMS_BIN" sim "$S/$tr.gmt" "$@" --json --memory-snapshot "$name.pickle" > "$name.json" ||
    fail "sim $name"
}
run ideal unet-small --policy dtr --budget 0.5
run caching unet-small --policy dtr --budget 0.5 --allocator caching
run expandable unet-small --policy dtr --budget 0.5 --allocator caching \
  --alloc-conf expandable_segments:True
run swap unet-small --policy swap-lru --budget 0.3
render() { # NAME VIEW
  python3 "$GMS_SOURCE_DIR/tests/browser/memoryviz.py" --memoryviz "$GMS_MEMORYVIZ_JS" \
    --d3 "$GMS_D3_JS" --chromium "$chrome" --snapshot "$1.pickle" --run-json "$1.json" \
    --view "$2" --out "page-$1-${2// /_}" || fail "$1: $2"
}
render ideal "Active Memory Timeline"
render caching "Active Memory Timeline"
render caching "Allocator State History"
render expandable "Allocator State History"
render swap "Allocator State History"
echo ok
