#!/usr/bin/env bash
# Peak fidelity of the shared PyTorch Execution Traces, checked from first principles: for every
# ET the baseline peak of the replay (info) lies within [-0.5%, +5%] of parameters + gradients +
# optimizer state + the step's largest saved activations or temporaries, read from the ET's own
# tensor sizes by et_first_principles.py (independent of the importer). The replay may exceed
# that figure by what else is alive at those moments (forward temporaries, the first backward
# outputs) but not fall below it by more than extents round. For GPT-2 Large the optimizer's
# in-place updates allocate nothing, info and sim say where the peak is (the Adam step's
# square roots beside parameters, gradients and both moments), and `fit --max-overhead 1.2`
# finds budgets below the baseline peak for dtr, dtr-eq and msps, each one re-checked by
# `sim` at the budget it found.
. "$(dirname "$0")/common.sh"
ET=$GMS_SHARED_DIR/traces/pytorch-et
[ -d "$ET" ] || fail "missing test data $ET"
FP=$(dirname "$0")/et_first_principles.py

n=0
for f in "$ET"/*_et.json.gz; do
  b=$(basename "$f" .json.gz)
  python3 "$FP" "$f" >"$T/$b.fp.json" || fail "$b: first-principles figure"
  "$GMS_BIN" info --json "$f" >"$T/$b.info.json" || fail "$b: info"
  python3 - "$b" "$T/$b.fp.json" "$T/$b.info.json" <<'PY' || fail "$b: replay peak off the first-principles figure"
import json, sys
name, fp, info = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
want, got = fp["peak"], info["baseline_memory"]
assert fp["P"] == info["constant_bytes"] or abs(fp["P"] - info["constant_bytes"]) < 0.001 * fp["P"], \
    f"{name}: parameters and buffers {fp['P']} B, the replay's constants {info['constant_bytes']} B"
assert 0.995 * want <= got <= 1.05 * want, \
    f"{name}: replay peak {got} B, first principles {want} B ({got / want - 1:+.2%}): {fp}"
print(f"{name}: replay {got} B, first principles {want} B ({got / want - 1:+.2%})")
PY
  n=$((n + 1))
done
[ "$n" -ge 5 ] || fail "only $n ETs in $ET"

# GPT-2 Large: 774,030,080 fp32 parameters; the Adam step's in-place ops write versions (views)
G=$ET/hf_gpt2_et.json.gz
"$GMS_BIN" convert "$G" -q -o "$T/gpt2.gmt" || fail "convert gpt2"
"$GMS_BIN" convert "$T/gpt2.gmt" --to dtr-log -q -o "$T/gpt2.log" || fail "gpt2 to a log"
python3 - "$T/gpt2.log" "$T/hf_gpt2_et.fp.json" <<'PY' || fail "gpt2: the optimizer step"
import json, sys
fp = json.load(open(sys.argv[2]))
step = next(v for k, v in fp.items() if k not in ("P", "peak"))
assert step["G"] == 774030080 * 4, f"gradients {step['G']} B, expected 774,030,080 fp32"
assert step["O"] == 2 * step["G"], f"Adam's state {step['O']} B, expected two moments"
lines = [json.loads(l) for l in open(sys.argv[1])]
writes = 0
for i, d in enumerate(lines):
    if d["INSTRUCTION"] == "CALL" and d["NAME"].startswith("aten::_foreach_") and d["NAME"].endswith("_"):
        aliases = [lines[i + 2 + 2 * k]["ALIAS"] for k in range(len(d["RESULT"]))]
        assert aliases and all(int(a) >= 0 for a in aliases), f"{d['NAME']} allocates: {aliases}"
        writes += 1
assert writes >= 436 * 5, f"{writes} in-place foreach parts"
PY

# where the peak is: info names the op, the phase and what is resident there by category;
# sim does the same at its run's peak, and the categories sum to it
"$GMS_BIN" info "$T/gpt2.gmt" >"$T/gpt2.info.txt" || fail "info gpt2"
grep -Eq '^peak at: +15518358528 B \(14.45 GiB\) at op [0-9]+ aten::_foreach_sqrt \(optimizer\)' \
  "$T/gpt2.info.txt" || fail "gpt2: info's peak line: $(grep -A7 '^peak at' "$T/gpt2.info.txt")"
"$GMS_BIN" info --json "$T/gpt2.gmt" >"$T/gpt2.info.json" || fail "info --json gpt2"
"$GMS_BIN" sim "$T/gpt2.gmt" --policy msps --budget 0.8 --json >"$T/gpt2.sim.json" || fail "sim gpt2"
python3 - "$T/gpt2.info.json" "$T/gpt2.sim.json" <<'PY' || fail "gpt2: where the peak is"
import json, sys
info, run = (json.load(open(p)) for p in sys.argv[1:])
p = info["peak"]
assert p["memory"] == info["baseline_memory"] and p["phase"] == "optimizer", p
assert p["op"] == "aten::_foreach_sqrt", p
c, g = p["by_category"], 774030080 * 4
assert c == {"preexisting": info["constant_bytes"], "gradients": g, "optimizer_state": 2 * g,
             "saved_activations": 0, "temporaries": g, "unknown": 0}, c
assert p["largest_op"]["bytes"] > 0 and p["largest_op"]["op"], p
q = run["peak_at"]
assert q["memory"] == run["peak_memory"] and sum(q["by_category"].values()) == q["memory"], q
assert q["by_category"]["unknown"] == 0 and q["phase"] == "optimizer", q
PY

"$GMS_BIN" fit "$T/gpt2.gmt" --max-overhead 1.2 --policies dtr,dtr-eq,msps -j 2 --json --quiet \
  >"$T/fit.json" || fail "fit gpt2"
python3 - "$T/fit.json" >"$T/fit.txt" <<'PY' || fail "gpt2: fit: $(cat "$T/fit.json")"
import json, sys
d = json.load(open(sys.argv[1]))
rows = {p["policy"]: p for p in d["results"]}
for pol in ("dtr", "dtr-eq", "msps"):
    p = rows[pol]
    assert p["found"] and p["budget_ratio"] < 1.0, f"{pol}: {p}"
    print(pol, p["budget_bytes"], p["overhead"])
PY
while read -r pol bytes over; do
  "$GMS_BIN" sim "$T/gpt2.gmt" --policy "$pol" --budget "${bytes}B" --json >"$T/sim.$pol.json" ||
    fail "sim $pol at ${bytes}B"
  python3 - "$T/sim.$pol.json" "$over" <<'PY' || fail "gpt2: $pol at ${bytes}B: $(cat "$T/sim.$pol.json")"
import json, sys
d, over = json.load(open(sys.argv[1])), float(sys.argv[2])
assert d["status"] == "ok" and d["overhead"] <= 1.2, d
assert abs(d["overhead"] - over) < 1e-9, f"sim {d['overhead']} vs fit {over}"
PY
done <"$T/fit.txt"
echo "ok"
