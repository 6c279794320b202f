#!/usr/bin/env bash
# plot overhead: a policy keeps its colour, dash and marker whatever subset is drawn; --size,
# --font-size and --columns set the printed figure, with one-column and two-column defaults
# and 8 pt text; --script keeps a self-contained gnuplot script that redraws the chart.
# shellcheck source=tests/cli/analysis/charts_lib.sh
source "$(dirname "$0")/charts_lib.sh"
"$GMS_BIN" sweep "$SAMPLES/mlp-small.gmt" "$SAMPLES/unet-small.gmt" --policies dtr,msps,lru \
  --budgets 0.5,0.8,1.0 --db r.db --quiet

# the same policy, the same look, in any subset and order
"$GMS_BIN" plot overhead r.db --policies dtr,msps,lru -o all.png --script all.gp
"$GMS_BIN" plot overhead r.db --policies lru,msps -o two.png --script two.gp
for p in msps lru; do
  a=$(policy_style all.gp $p) b=$(policy_style two.gp $p)
  [ -n "$a" ] || fail "no style line for $p in all.gp"
  [ "$a" = "$b" ] || fail "$p changes its look with the subset: '$a' vs '$b'"
done
[ "$(policy_style all.gp msps)" != "$(policy_style all.gp lru)" ] || fail "msps and lru look alike"
[ "$(policy_style all.gp dtr)" != "$(policy_style all.gp msps)" ] || fail "dtr and msps look alike"

# defaults: several traces span two columns (7 in), one trace one column (3.3 in), 8 pt text
"$GMS_BIN" plot overhead r.db -o two-col.pdf --script two-col.gp
grep -Eq "^set terminal pdfcairo size 7.000in,[0-9.]+in .*font 'Sans,8' fontscale 0.75" two-col.gp ||
  fail "the default several-trace PDF is not 7 in wide with 8 pt text: $(grep terminal two-col.gp)"
"$GMS_BIN" plot overhead r.db --trace mlp-small -o one-col.pdf --script one-col.gp
grep -Eq "^set terminal pdfcairo size 3.300in,[0-9.]+in .*font 'Sans,8' fontscale 0.75" one-col.gp ||
  fail "the default one-trace PDF is not 3.3 in wide with 8 pt text: $(grep terminal one-col.gp)"
# a PNG is drawn at 150 dpi: 3.3 in = 495 pixels
"$GMS_BIN" plot overhead r.db --trace mlp-small -o one-col.png --script png.gp
grep -q "^set terminal pngcairo size 495," png.gp || fail "PNG not at 150 dpi: $(grep terminal png.gp)"

# explicit sizes, in inches or centimetres, a font size and a column count
"$GMS_BIN" plot overhead r.db -o cm.pdf --size 17x12cm --font-size 9 --columns 1 --script cm.gp
grep -Eq "^set terminal pdfcairo size 6.693in,4.724in .*font 'Sans,9'" cm.gp ||
  fail "--size 17x12cm --font-size 9 not applied: $(grep terminal cm.gp)"
grep -q "^set multiplot layout 3,1 " cm.gp || fail "--columns 1 did not stack the panels"
if command -v pdfinfo > /dev/null; then
  pdfinfo cm.pdf | grep -Eq "Page size: *48[12](\.[0-9]*)? x 34[01](\.[0-9]*)? pts" ||
    fail "cm.pdf has the wrong page size: $(pdfinfo cm.pdf | grep 'Page size')"
fi
expect_fail "size '3x': expected a preset .* or WIDTHxHEIGHT" "$GMS_BIN" plot overhead r.db -o x.png --size 3x
expect_fail "size '100x2in'" "$GMS_BIN" plot overhead r.db -o x.png --size 100x2in
expect_fail "font-size '2'" "$GMS_BIN" plot overhead r.db -o x.png --font-size 2
expect_fail "columns '0'" "$GMS_BIN" plot overhead r.db -o x.png --columns 0
[ ! -e x.png ] || fail "a rejected command wrote a chart"

# the kept script holds its data and redraws the chart on its own
rm -f one-col.png
rm -rf "$TMPDIR"/*
(cd "$GMS_TMP" && gnuplot png.gp) || fail "gnuplot cannot rerun the kept script"
[ -s one-col.png ] || fail "the kept script did not redraw one-col.png"
grep -q '^\$trace1 << EOD$' png.gp || fail "the kept script does not carry its data"
echo PASS
