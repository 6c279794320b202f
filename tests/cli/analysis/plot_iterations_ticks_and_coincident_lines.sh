#!/usr/bin/env bash
# End-to-end (issue 32 item 4): 'plot iterations' puts x ticks on whole iterations only (not
# 0.5, 1.5, ...), and a policy whose line coincides with another's (mimose under ckpt-all,
# checked from sim's own per-iteration figures) is drawn so that it shows and is named as
# the same as the other in the legend; a line that differs is not.
. "$(dirname "$0")/lib.sh"

"$GMS_BIN" synth --model transformer --layers 4 --hidden 256 --heads 4 --vocab 2048 \
  --iterations 4 --vary-input 64:256 -o gpt.gmt >/dev/null || fail "synth"
fig() { "$GMS_BIN" sim gpt.gmt --policy "$1" --budget 0.6 --json | jq -c '[.iterations[] | [.peak_memory, .overhead]]'; }
[ "$(fig mimose)" = "$(fig ckpt-all)" ] || fail "mimose and ckpt-all differ here (bad test data)"
[ "$(fig dtr)" != "$(fig ckpt-all)" ] || fail "dtr and ckpt-all coincide (bad test data)"
"$GMS_BIN" plot iterations gpt.gmt --policies mimose,ckpt-all,dtr --budget 0.6 -o it.svg >/dev/null ||
  fail "plot iterations"

# x tick labels: centred numbers under the panels; all whole, 0 to 3 present
python3 - it.svg <<'PY' || fail "x ticks"
import re, sys
s = open(sys.argv[1]).read()
ticks = re.findall(r'text-anchor="middle">\s*<text>(?:<tspan[^>]*>)?\s*([-\d.]+)\s*<', s)
assert ticks, "no x tick labels"
frac = [t for t in ticks if float(t) != int(float(t))]
assert not frac, f"x ticks between iterations: {sorted(set(frac))}"
assert {"0", "1", "2", "3"} <= set(ticks), f"iterations missing from the ticks: {set(ticks)}"
PY
# the coincident line: named in both panels' legends; dtr's is not
[ "$(grep -c '<text>ckpt-all (same as mimose)</text>' it.svg)" -eq 2 ] || fail "ckpt-all not named the same as mimose"
grep -q 'dtr (same as' it.svg && fail "dtr named as coinciding"
"$GMS_BIN" plot iterations gpt.gmt --policies mimose,ckpt-all,dtr --budget 0.6 -o it.png >/dev/null ||
  fail "png"
echo ok
