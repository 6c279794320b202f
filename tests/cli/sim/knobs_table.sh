#!/usr/bin/env bash
# scripts/knobs-table.sh, the script behind docs/planners.md's comparison table (issue 29): on
# a small synthetic transformer, one row per knob with every policy's cell; --write replaces
# exactly the lines between the markers of a document and leaves the rest; a document without
# the markers is refused untouched.
set -euo pipefail
: "${GMS_BIN:?}" "${GMS_TMP:?}" "${GMS_SOURCE_DIR:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP"
"$GMS_BIN" synth --model transformer --layers 2 --hidden 128 --heads 2 --seq 64 --vocab 500 \
  -o tf.gmt -q || fail "synth"
export GMS_KNOBS_TRACES="$PWD/tf.gmt" GMS_KNOBS_KNOBS="0.3 0.9" GMS_KNOBS_OPT_LIMIT=5
table=$("$GMS_SOURCE_DIR/scripts/knobs-table.sh") || fail "knobs-table"
[ "$(grep -c '^| tf.gmt | ' <<<"$table")" -eq 2 ] || fail "two rows expected: $table"
head -1 <<<"$table" | grep -q '| ac-budget dp (peak) | greedy (peak) | sac | rotor | ckpt-sqrt | mimose | dtr | optimum (layers) | dp above the best |' ||
  fail "header: $(head -1 <<<"$table")"
# each row: 11 cells; ac-budget's cell is overhead (peak ratio); the optimum a number, a bound
# or infeasible
while IFS= read -r row; do
  [ "$(awk -F'|' '{ print NF - 2 }' <<<"$row")" -eq 11 ] || fail "cells: $row"
  grep -Eq '^\| tf.gmt \| 0\.[39] \| [0-9.]+ \([0-9.]+\) \|' <<<"$row" || fail "ac-budget cell: $row"
  grep -Eq '\| ([0-9.]+|<= [0-9.]+|>= [0-9.]+|infeasible) \| [^|]+ \|$' <<<"$row" || fail "optimum cell: $row"
done < <(grep '^| tf.gmt | ' <<<"$table")
# knob 0.3 reaches no more memory than knob 0.9 (the knob moves the cut towards the inputs)
p3=$(grep '^| tf.gmt | 0.3 ' <<<"$table" | sed -E 's/^[^(]*\(([0-9.]+)\).*/\1/')
p9=$(grep '^| tf.gmt | 0.9 ' <<<"$table" | sed -E 's/^[^(]*\(([0-9.]+)\).*/\1/')
awk -v a="$p3" -v b="$p9" 'BEGIN { exit !(a <= b) }' || fail "knob 0.3 peaks at $p3, above 0.9's $p9"
printf 'intro\n<!-- knobs-table -->\nold row\n<!-- /knobs-table -->\nafter\n' >doc.md
"$GMS_SOURCE_DIR/scripts/knobs-table.sh" --write doc.md >/dev/null || fail "--write"
[ "$(head -2 doc.md)" = "$(printf 'intro\n<!-- knobs-table -->')" ] || fail "before the table: $(cat doc.md)"
[ "$(tail -2 doc.md)" = "$(printf '<!-- /knobs-table -->\nafter')" ] || fail "after the table: $(cat doc.md)"
! grep -q 'old row' doc.md || fail "the old table stayed"
[ "$(grep -c '^| tf.gmt | ' doc.md)" -eq 2 ] || fail "the new rows: $(cat doc.md)"
[ ! -e doc.md.tmp ] || fail "a temporary file stayed"
printf 'no markers\n' >plain.md
out=$("$GMS_SOURCE_DIR/scripts/knobs-table.sh" --write plain.md 2>&1) && fail "a document without markers was accepted"
grep -q 'no <!-- knobs-table --> marker in plain.md' <<<"$out" || fail "message: $out"
[ "$(cat plain.md)" = "no markers" ] || fail "the document was changed"
echo PASS
