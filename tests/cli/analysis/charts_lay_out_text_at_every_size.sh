#!/usr/bin/env bash
# End-to-end (issue 32 item 3): 'plot overhead' at each --size preset (column, two-column,
# slide) and the default, with one trace and with several, 17+ policies (sweep's "all" plus the
# planners): rendered as SVG, no two pieces of text overlap and none leaves the page
# (svg_text_boxes.py), a one-trace legend sits below the plot, not in it, and the PNG renders
# too. Every policy keeps a look of its own: colours all distinct, and among sweep's "all" the
# point shapes and dash patterns too.
. "$(dirname "$0")/lib.sh"
BOXES="$GMS_SOURCE_DIR/tests/cli/analysis/svg_text_boxes.py"

# every eviction policy the ideal model runs (not coop, dtr-frag) and every planner
names=$("$GMS_BIN" sim --list-policies | awk '$2 != "solved:" {print $1}' |
  grep -vx -e coop -e dtr-frag)
"$GMS_BIN" sweep "$UNET" "$RESNET" "$TRANSFORMER" --policies "$(echo $names | tr ' ' ,)" \
  --budgets 0.3:1.0:0.1 --db r.db --quiet || fail "sweep"
for size in default column two-column slide; do
  opt=(--size "$size")
  [ "$size" = default ] && opt=()
  "$GMS_BIN" plot overhead r.db --trace unet-small "${opt[@]}" -o "one-$size.svg" \
    --script "one-$size.gp" >/dev/null || fail "plot one trace at $size"
  # shellcheck disable=SC2086 # the policy names, one argument each
  python3 "$BOXES" "one-$size.svg" --legend-below dtr lru swap-lru mimose-static ||
    fail "one trace at --size $size: text overlaps, leaves the page or the legend is inside"
  "$GMS_BIN" plot overhead r.db "${opt[@]}" -o "all-$size.svg" >/dev/null ||
    fail "plot three traces at $size"
  python3 "$BOXES" "all-$size.svg" || fail "three traces at --size $size: text overlaps"
  "$GMS_BIN" plot overhead r.db "${opt[@]}" -o "all-$size.png" >/dev/null || fail "png at $size"
  [ -s "all-$size.png" ] || fail "no png at $size"
done
help=$("$GMS_BIN" plot --help)
grep -q "preset: column" <<<"$help" || fail "--help does not list the presets"

# the styles: "set style line N lc rgb 'C' lw W dt D pt P ... # NAME"
sed -n "s/^set style line [0-9]* lc rgb '\([^']*\)' lw [0-9.]* dt \([^ ]*\) pt \([0-9]*\) .*# \(.*\)$/\4 \1 \2 \3/p" \
  one-default.gp >styles.txt
n_names=$(echo "$names" | wc -l)
[ "$n_names" -ge 17 ] || fail "only $n_names policies drawn: $names"
[ "$(wc -l <styles.txt)" -eq "$n_names" ] || fail "not $n_names policies styled: $(cat styles.txt)"
[ "$(awk '{print $2}' styles.txt | sort -u | wc -l)" -eq "$n_names" ] ||
  fail "two policies share a colour: $(sort -k2 styles.txt)"
# sweep's "all" on the ideal model
all=$("$GMS_BIN" sim --list-policies | awk '$2 != "planner:" && $2 != "solved:" {print $1}' |
  grep -vx -e coop -e dtr-frag)
awk 'NR == FNR { want[$1] = 1; next } want[$1]' <(echo "$all") styles.txt >all.txt
[ "$(wc -l <all.txt)" -eq 14 ] || fail "sweep's all is not 14 policies: $(cat all.txt)"
[ "$(awk '{print $4}' all.txt | sort -u | wc -l)" -eq 14 ] || fail "shapes repeat: $(sort -k4 all.txt)"
[ "$(awk '{print $3}' all.txt | sort -u | wc -l)" -eq 14 ] || fail "dashes repeat: $(sort -k3 all.txt)"
# none of them draws with the failure marks' shapes (2 = x, 10 = triangle down)
awk '$4 == 2 || $4 == 10 { exit 1 }' styles.txt || fail "a line uses a failure mark's shape"
for n in $names; do grep -q "^$n " styles.txt || fail "$n has no style line"; done
echo ok
