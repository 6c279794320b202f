#!/usr/bin/env bash
# plot overhead and plot timeline write valid PNG, SVG and PDF files, chosen by extension.
# shellcheck source=tests/cli/analysis/lib.sh
source "$(dirname "$0")/lib.sh"
"$GMS_BIN" sweep "$RESNET" "$UNET" --policies dtr,lru,random --seeds 2 --budgets 0.1:1.0:0.1 \
  --db r.db --quiet
is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
is_svg() { head -c 200 "$1" | grep -q '<?xml' && grep -q '<svg' "$1" && tail -c 20 "$1" | grep -q '</svg>'; }
is_pdf() { [ "$(head -c 5 "$1")" = "%PDF-" ] && tail -c 10 "$1" | grep -q '%%EOF'; }

"$GMS_BIN" plot overhead r.db -o all.png && is_png all.png || fail "overhead PNG"
"$GMS_BIN" plot overhead r.db -o all.svg && is_svg all.svg || fail "overhead SVG"
"$GMS_BIN" plot overhead r.db -o all.PDF && is_pdf all.PDF || fail "overhead PDF"
"$GMS_BIN" plot overhead r.db --trace 'unet*' --policies lru,dtr -o one.png && is_png one.png ||
  fail "single-trace PNG"
grep -q '>unet-small<' all.svg || fail "the SVG lacks the panel title of the U-Net trace"
grep -q 'random (2 seeds)' all.svg || fail "the SVG legend lacks the seed count"
grep -q 'seeds: mean, min-max band' all.svg || fail "the SVG legend does not say seeds are a mean and a band"
"$GMS_BIN" plot timeline "$UNET" --policy dtr --budget 0.6 -o tl.png && is_png tl.png ||
  fail "timeline PNG"
"$GMS_BIN" plot timeline "$UNET" --policy lru --budget 4GiB -o tl.svg && is_svg tl.svg ||
  fail "timeline SVG"
"$GMS_BIN" plot timeline "$UNET" --policy dtr --budget 0.2 -o tl.pdf && is_pdf tl.pdf ||
  fail "timeline PDF of a failed run"
# the baseline run's resident bytes stacked by category (docs/memory.md, "Where the peak is")
"$GMS_BIN" plot timeline "$UNET" --policy dtr --budget 1.0 --by-category -o cat.svg &&
  is_svg cat.svg || fail "timeline by category SVG"
for c in pre-existing gradients 'optimizer state' 'saved activations' temporaries unknown; do
  grep -q ">$c<" cat.svg || fail "the stacked timeline's legend lacks '$c'"
done
grep -q '>saved activations<' tl.svg && fail "a plain timeline stacks categories"

expect_fail 'name the output .png, .svg or .pdf' "$GMS_BIN" plot overhead r.db -o chart.jpg
expect_fail "no trace 'nothing' in r.db; it holds: resnet-small, unet-small" "$GMS_BIN" plot overhead r.db --trace nothing -o none.png
expect_fail "unknown policy 'nope'" "$GMS_BIN" plot timeline "$UNET" --policy nope --budget 0.5 -o x.png
expect_fail 'cannot' "$GMS_BIN" plot timeline missing.gmt --policy dtr --budget 0.5 -o x.png
[ ! -e chart.jpg ] && [ ! -e none.png ] && [ ! -e x.png ] || fail "a failed plot left a file"
no_temp_files
[ -z "$(find "${TMPDIR:-/tmp}" -maxdepth 1 -name 'gpumemsim-plot-*' -newer r.db 2>/dev/null)" ] ||
  fail "temporary gnuplot files were left in ${TMPDIR:-/tmp}"
echo PASS
