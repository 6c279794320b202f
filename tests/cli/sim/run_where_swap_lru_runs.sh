#!/usr/bin/env bash
# End-to-end: capuchin and hybrid run (status ok) in every cell where swapping alone
# (swap-lru) runs, over the bundled samples and synthetic traces x budgets 0.2..0.9 x PCIe
# 3/4/5, with the default remat limit (issue 30). Before, capuchin's price of a drop missed
# the ancestors released after it, and a chain too big to fit was recomputed piece by piece:
# resnet-small at 0.4, unet and resnet34 at 0.4 stopped at the remat limit, mlp with batch
# 4096 at 0.6 ran out of memory; hybrid, dropping as dtr does, stopped on the MLP sample at
# 0.2-0.4 and on mlp with batch 4096 at 0.6-0.8; all where swap-lru runs.
set -u -o pipefail
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1
syn() { n=$1; shift; "$GMS_BIN" synth "$@" -o "$n.gmt" -q || fail "synth $n"; }
syn mlp4096 --model mlp --batch 4096 --layers 6 --gpu h100
syn resnet --model resnet --gpu h100
syn resnet34 --model resnet --layers 34 --gpu v100
syn unet --model unet --gpu a100
syn unet16 --model unet --batch 16 --gpu h100
for link in pcie3 pcie4 pcie5; do
  "$GMS_BIN" sweep ./*.gmt "$GMS_SOURCE_DIR"/traces/samples/*.gmt --policies swap-lru,capuchin,hybrid \
    --budgets 0.2:0.9:0.1 --link $link --db m.db -j 2 --quiet || fail "sweep $link"
done
"$GMS_BIN" db export m.db --csv > m.csv || fail "export"
out=$(python3 - m.csv <<'PY'
import csv, sys
cells = {}
for r in csv.DictReader(open(sys.argv[1])):
    cells.setdefault((r["trace"], r["params"], r["ratio"]), {})[r["policy"]] = r["status"]
runs = [k for k, v in cells.items() if v.get("swap-lru") == "ok"]
bad = [(k, p, cells[k].get(p)) for k in runs for p in ("capuchin", "hybrid")
       if cells[k].get(p) != "ok"]
print(len(cells), len(runs), len(bad))
for b in bad:
    print("  ", *b)
PY
) || fail "check"
read -r n runs bad <<< "$out"
[ "$n" -eq 240 ] || fail "expected 240 cells (10 traces x 8 budgets x 3 links): $out"
[ "$runs" -ge 150 ] || fail "swap-lru runs in too few cells to test anything: $out"
[ "$bad" -eq 0 ] || fail "capuchin or hybrid stops where swap-lru runs: $out"
exit 0
