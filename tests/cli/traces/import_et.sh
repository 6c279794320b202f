#!/usr/bin/env bash
# The PyTorch Execution Traces in ../shared import as they are (info, sim, convert sniff them):
# ResNet-50 DDP gives 3 iterations of 53 convolutions whose weights, batch-norm and linear
# parameters are constants holding ResNet-50's 25,557,032 fp32 parameters (read, after the
# first optimizer step, through the versions its in-place updates made); every ET replays
# under dtr at several budgets, and a .gmt converted from an ET gives the same numbers.
. "$(dirname "$0")/common.sh"
ET=$GMS_SHARED_DIR/traces/pytorch-et
[ -d "$ET" ] || fail "missing test data $ET"

R50=$ET/resnet50_ddp_et.json.gz
"$GMS_BIN" convert "$R50" --to dtr-log -q -o "$T/r50.log" || fail "convert resnet50 to a log"
python3 - "$T/r50.log" <<'PY' || fail "resnet50 import"
import json, sys
size, const, params, convs, it = {}, set(), set(), {}, 0
root, args = {}, {}  # a view (an in-place write's new version too) -> its storage's root
for line in open(sys.argv[1]):
    d = json.loads(line)
    ins = d["INSTRUCTION"]
    if ins == "MEMORY":
        size[d["NAME"]] = int(d["MEMORY"])
    elif ins == "ALIAS":
        a = int(d["ALIAS"])
        root[d["NAME"]] = root.get(args[a], args[a]) if a >= 0 else d["NAME"]
    elif ins == "CONSTANT":
        const.add(d["NAME"])
    elif ins == "ANNOTATE" and d["ANNOTATION"] == "iteration":
        it += 1
    if ins == "CALL":
        args = d["ARGS"]
    if ins == "CALL" and d["NAME"] == "aten::conv2d":
        convs[it] = convs.get(it, 0) + 1
        params.update(root.get(x, x) for x in d["ARGS"][1:2])  # (input, weight): no bias
    elif ins == "CALL" and d["NAME"] in ("aten::batch_norm", "aten::linear"):
        params.update(root.get(x, x) for x in d["ARGS"][1:3])  # (input, weight, bias, ...)
assert it == 3, f"{it} iterations, expected 3"
assert convs == {1: 53, 2: 53, 3: 53}, f"convolutions per iteration: {convs}"
missing = [p for p in params if p not in const]
assert not missing, f"parameters that are not constants: {missing[:5]}"
n = sum(size[p] for p in params) // 4
assert n == 25557032, f"{n} fp32 parameters in the constants, expected 25,557,032"
PY

# sweep takes an ET as it is too
"$GMS_BIN" sweep "$ET/linear_et.json.gz" --policies dtr,lru --budgets 1.0 --db "$T/s.db" --quiet ||
  fail "sweep of an ET"
[ -s "$T/s.db" ] || fail "sweep wrote no store"

# a faster GPU's estimate is cheaper in total (convolutions are compute-bound on both)
"$GMS_BIN" convert "$R50" --gpu h100 -q -o "$T/r50-h100.gmt" || fail "convert --gpu h100"
h100=$("$GMS_BIN" info --json "$T/r50-h100.gmt" | python3 -c 'import json,sys; print(json.load(sys.stdin)["baseline_compute"])')
v100=$("$GMS_BIN" info --json "$R50" | python3 -c 'import json,sys; print(json.load(sys.stdin)["baseline_compute"])')
[ "$h100" -lt "$v100" ] || fail "resnet50: h100 estimate $h100 ns not below v100 $v100 ns"

for f in "$ET"/*_et.json.gz; do
  b=$(basename "$f" .json.gz)
  "$GMS_BIN" info --json "$f" >"$T/$b.info.json" || fail "$b: info"
  grep -q '"format": "pytorch-et"' "$T/$b.info.json" || fail "$b: not sniffed as an ET"
  grep -q '"cost_source": "estimated' "$T/$b.info.json" || fail "$b: costs not marked estimated"
  # convert to .gmt: the same events, the same header
  "$GMS_BIN" convert "$f" -q -o "$T/$b.gmt" || fail "$b: convert"
  "$GMS_BIN" info --json "$T/$b.gmt" >"$T/$b.gmt.json" || fail "$b: info of the .gmt"
  python3 - "$T/$b.info.json" "$T/$b.gmt.json" <<'PY' || fail "$b: .gmt differs from the ET"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
for k in ("events_by_kind", "baseline_memory", "baseline_compute", "constant_bytes", "meta"):
    assert a[k] == b[k], f"{k}: {a[k]} vs {b[k]}"
PY
  # budget = the baseline peak: nothing to evict; lower budgets run to a status
  for budget in 1.0 0.8 0.6; do
    "$GMS_BIN" sim "$f" --budget $budget >"$T/$b.$budget.txt" 2>&1 || fail "$b: sim --budget $budget"
    grep -Eq '^status +(ok|oom|remat-limit)' "$T/$b.$budget.txt" || fail "$b: no status at $budget"
  done
  grep -Eq '^status +ok' "$T/$b.1.0.txt" || fail "$b: not ok at the baseline budget: $(cat "$T/$b.1.0.txt")"
done
# ResNet-50 replays below its baseline with recomputation, not an oom
grep -Eq '^status +ok' "$T/resnet50_ddp_et.0.6.txt" || fail "resnet50 at 0.6: $(cat "$T/resnet50_ddp_et.0.6.txt")"
echo "ok"
