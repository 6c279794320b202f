#!/usr/bin/env bash
# End-to-end: hybrid against both of its halves (dtr, swap-lru) (issue 30).
# hybrid measures the step under its per-victim mix (hybrid-mix), dtr and swap-lru and runs the
# cheapest, so on synthetic traces at the goal's cells (budgets 0.2-0.5, PCIe 3/4/5, no remat
# limit) it is never worse than the better half plus 1% of baseline compute, and it is the
# cheapest candidate run for run. The traces are three of the 37 synthetic ones the design was
# chosen on, where hybrid-mix alone (hybrid before issue 30's third session) missed that goal:
# resnet on h100 at 0.5 on PCIe 3 (2.016 against dtr's 1.854), unet with batch 16 on v100 at
# 0.4 on PCIe 3, resnet with varying input (seed 2) at 0.5 on PCIe 3 (2.093 against 1.555).
# hybrid-mix itself: where it swaps nothing it is dtr run for run, where it swaps it is better
# than dtr. With the default remat limit hybrid runs the MLP sample where dtr stops.
set -u -o pipefail
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1
S="$GMS_SOURCE_DIR/traces/samples"
syn() { n=$1; shift; "$GMS_BIN" synth "$@" -o "$n.gmt" -q || fail "synth $n"; }
syn resnet-h100 --model resnet --gpu h100
syn unet16-v100 --model unet --batch 16 --gpu v100
syn resnet-vary-s2 --model resnet --iterations 2 --vary-input 160:288 --gpu a100 --seed 2

for link in pcie3 pcie4 pcie5; do
  "$GMS_BIN" sweep ./*.gmt --policies dtr,swap-lru,hybrid-mix,hybrid --budgets 0.2:0.5:0.1 \
    --link $link --remat-limit 0 --db g.db -j 2 --quiet || fail "sweep $link"
done
"$GMS_BIN" db export g.db --csv > g.csv || fail "export"
out=$(python3 - g.csv <<'PY'
import csv, re, sys
cells = {}
for r in csv.DictReader(open(sys.argv[1])):
    m = re.match(r"link=([0-9.]+)GBps", r["params"])
    cells.setdefault((r["trace"], r["ratio"]), {})[(r["policy"], m and m.group(1))] = r
ok = lambda r: r["status"] == "ok"
ov = lambda r: float(r["overhead"])
n = hyb_miss = mix_miss = not_cheapest = 0
for (t, b), c in sorted(cells.items()):
    d = c[("dtr", None)]
    for l in sorted({k[1] for k in c if k[1]}):
        s, m, h = c[("swap-lru", l)], c[("hybrid-mix", l)], c[("hybrid", l)]
        ref = [ov(x) for x in (d, s) if ok(x)]
        if ok(s) and not ok(h):
            print("  stops where swap-lru runs:", t, b, l)
            hyb_miss += 1
        cand = [ov(x) for x in (m, d, s) if ok(x)]
        if cand and not (ok(h) and ov(h) == min(cand)):
            print("  not the cheapest candidate:", t, b, l, h["status"], h["overhead"], cand)
            not_cheapest += 1
        if not ref:
            continue
        n += 1
        if not ok(h) or ov(h) > min(ref) + 0.01:
            print("  misses:", t, b, l, h["overhead"], ref)
            hyb_miss += 1
        if not ok(m) or ov(m) > min(ref) + 0.01:
            mix_miss += 1
print(n, hyb_miss, not_cheapest, mix_miss)
PY
) || fail "check"
read -r n hyb_miss not_cheapest mix_miss <<< "$(tail -n 1 <<< "$out")"
[ "$n" -ge 12 ] || fail "too few cells where dtr or swap-lru runs: $out"
[ "$hyb_miss" -eq 0 ] || fail "hybrid worse than the better half + 1% of compute: $out"
[ "$not_cheapest" -eq 0 ] || fail "hybrid is not its cheapest candidate: $out"
[ "$mix_miss" -ge 3 ] || fail "hybrid-mix no longer misses here: the test no longer bites: $out"

run() { "$GMS_BIN" sim "$S/$1.gmt" --policy "$2" --budget "$3" --remat-limit 0 "${@:4}" --json; }
for link in pcie3 pcie4 pcie5; do
  d=$(run unet-small dtr 0.3) || fail "dtr"
  h=$(run unet-small hybrid-mix 0.3 --link $link) || fail "hybrid-mix $link"
  [ "$(jq -c '[.overhead, .evictions, .remats, .clock]' <<< "$d")" = \
    "$(jq -c '[.overhead, .evictions, .remats, .clock]' <<< "$h")" ] \
    || fail "unet-small 0.3 $link: hybrid-mix is not dtr where it swaps nothing: $h vs $d"
  jq -e '.swap.swaps_out == 0' <<< "$h" >/dev/null || fail "unet-small swapped: $h"

  d=$(run resnet-vary dtr 0.5) || fail "dtr"
  h=$(run resnet-vary hybrid-mix 0.5 --link $link) || fail "hybrid-mix $link"
  jq -n -e --argjson d "$d" --argjson h "$h" '
    $h.status == "ok" and $h.swap.swaps_out > 0 and $h.overhead < $d.overhead' >/dev/null \
    || fail "resnet-vary 0.5 $link: hybrid-mix $(jq .overhead <<< "$h"), dtr $(jq .overhead <<< "$d")"
done
# With the default remat limit (issue 30, second session): on the MLP sample at 0.2-0.4 dtr
# stops at the limit; hybrid runs, at no more than swapping alone costs.
M="$S/mlp-small.gmt"
for b in 0.2 0.3 0.4; do
  for link in pcie3 pcie5; do
    d=$("$GMS_BIN" sim "$M" --policy dtr --budget $b --json) || fail "dtr $b"
    s=$("$GMS_BIN" sim "$M" --policy swap-lru --budget $b --link $link --json) || fail "swap-lru"
    h=$("$GMS_BIN" sim "$M" --policy hybrid --budget $b --link $link --json) || fail "hybrid"
    jq -n -e --argjson d "$d" --argjson s "$s" --argjson h "$h" '
      $d.status == "remat-limit" and $s.status == "ok" and $h.status == "ok"
      and $h.remat_compute <= $h.baseline_compute and $h.overhead <= $s.overhead' >/dev/null \
      || fail "mlp-small $b $link: hybrid $(jq -c '[.status, .overhead]' <<< "$h"), swap-lru $(jq -c .overhead <<< "$s")"
  done
done
exit 0
