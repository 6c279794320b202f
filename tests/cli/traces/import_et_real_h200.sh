#!/usr/bin/env bash
# Real torch 2.11 Execution Traces + Kineto traces recorded on an H200 (tests/data/
# pytorch-et-h200, README): one steady-state training step of an MLP (Adam), a small
# Transformer encoder (AdamW) and a GPT-like decoder under bf16 autocast (AdamW), with torch's
# own memory figures for the same step. Checks the
# import against them from first principles:
# - the join is one to one, the header names the H200 for every cost field;
# - constants = parameters + Adam's two moments + the batch, from the parameter count torch
#   printed (the moments are fp32 like the parameters; Adam's step counters are CPU tensors);
# - the step's own memory: torch's max_memory_allocated in the step minus what was allocated
#   before it, less the previous step's gradients that zero_grad(set_to_none=True) drops first
#   (= the parameters' bytes). With the Kineto trace's memory events (the real frees, the
#   kernels' workspaces) the import equals it up to the allocator's 512-byte rounding (4 KiB
#   in all) for the MLP and the Transformer, and is at most 1% below for the GPT (measured
#   3.5 MiB: five large blocks the allocator did not split, 2.5 and 3 MiB for 2 MiB tensors,
#   7 MiB for a 6 MiB one); no matched block is freed before its storage's last use; the peak
#   is at torch's own peak op (the Kineto memory events' maximum: the MLP's
#   aten::_foreach_sqrt in the optimizer step, the others' backward aten::sum and
#   aten::_log_softmax_backward_data). Without them (the same Kineto traces, memory events
#   stripped) the ET's rule gives a lower bound: the MLP's is the same, the Transformer's 5-15%
#   below (measured 9.8%: a 15.6 MiB workspace inside the backward aten::sum and the logits
#   that the script's Python variable holds to the end of the step), the GPT's 5-10% (7.2%);
# - what torch had allocated before the step beyond parameters, moments, gradients and batch
#   (no ET op made it) is the same for the MLP and the Transformer to 4 KiB: it does not
#   depend on the model (the GPT, under autocast, has 5 MiB more);
# - memcheck replays every Kineto memory event with torch's Total Allocated.
set -u
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1
D="$GMS_SOURCE_DIR/tests/data/pytorch-et-h200"

for m in mlp transformer gpt-amp; do
  "$GMS_BIN" convert "$D/${m}_et.json.gz" --kineto "$D/${m}_kineto.json.gz" -o "$m.gmt" \
    > /dev/null 2> err.txt || fail "convert $m: $(cat err.txt)"
  [ -s err.txt ] && fail "convert $m warned: $(cat err.txt)"
  "$GMS_BIN" info "$m.gmt" --json > "$m.json" || fail "info $m"
  "$GMS_BIN" memcheck "$D/${m}_kineto.json.gz" --json > "mc-$m.json" || fail "memcheck $m"
  "$GMS_BIN" sim "$m.gmt" --policy msps --budget 0.95 --json > "sim-$m.json" || fail "sim $m"
  python3 - "$D/${m}_kineto.json.gz" "nomem-$m.json" <<'PY' || fail "strip $m"
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
d["traceEvents"] = [e for e in d["traceEvents"] if e.get("name") != "[memory]"]
json.dump(d, open(sys.argv[2], "w"))
PY
  "$GMS_BIN" convert "$D/${m}_et.json.gz" --kineto "nomem-$m.json" -o "nomem-$m.gmt" \
    > /dev/null 2> err.txt || fail "convert $m without memory events: $(cat err.txt)"
  "$GMS_BIN" info "nomem-$m.gmt" --json > "nomem-$m.info.json" || fail "info nomem $m"
done
python3 - "$D" <<'PY' || fail "figures against torch's"
import json, sys
D = sys.argv[1]
batch = {"mlp": 512 * 1024 * 4 + 512 * 8, "transformer": 16 * 128 * 256 * 4 + 16 * 128 * 8,
         "gpt-amp": 2 * 8 * 256 * 8}
peak_at = {"mlp": ("optimizer", "aten::_foreach_sqrt"), "transformer": ("backward", "aten::sum"),
           "gpt-amp": ("backward", "aten::_log_softmax_backward_data")}
below = {"mlp": (0, 4096), "transformer": (0, 4096)}          # torch's minus the import's, B
bound_share = {"transformer": (0.85, 0.95), "gpt-amp": (0.90, 0.95)}  # without memory events
outside = {}
for m in ("mlp", "transformer", "gpt-amp"):
    t = json.load(open(f"{D}/{m}_torch_memory.json"))
    assert t["torch"].startswith("2.11") and t["gpu"] == "NVIDIA H200", t
    i = json.load(open(f"{m}.json"))
    meta = i["meta"]
    assert meta["et_schema"] == "1.1.1-chakra.0.0.4", meta
    assert meta["kineto_join"] == "one to one" and meta["cost_gpu"] == "NVIDIA H200", meta
    assert "v100" not in json.dumps(meta).lower(), meta
    assert meta["kineto_gpu_events_joined"] == meta["kineto_gpu_events"], meta
    param_bytes = 4 * t["parameters"]
    assert i["constant_bytes"] == 3 * param_bytes + batch[m], (m, i["constant_bytes"])
    real = t["max_memory_allocated_in_step"] - (t["memory_allocated_before_step"] - param_bytes)
    ours = i["baseline_memory"] - i["constant_bytes"]
    lo, hi = below.get(m, (0, 0.01 * real))
    assert lo <= real - ours <= hi, (m, ours, real)
    assert "real frees" in meta["releases"], meta
    assert int(meta["kineto_allocations_matched"]) > 0, meta
    assert meta["kineto_frees_before_last_use"] == "0", meta
    pk = i["peak"]
    assert (pk["phase"], pk["op"]) == peak_at[m], (m, pk)
    lb = json.load(open(f"nomem-{m}.info.json"))
    assert lb["meta"]["releases"].startswith("after last use: a lower bound"), lb["meta"]
    assert lb["constant_bytes"] == i["constant_bytes"], lb
    bound = lb["baseline_memory"] - lb["constant_bytes"]
    if m == "mlp":
        assert 0 <= real - bound <= 4096, (m, bound, real)
    else:
        lo, hi = bound_share[m]
        assert lo * real <= bound <= hi * real, (m, bound, real)
    assert sum(pk["by_category"].values()) == pk["memory"] == i["baseline_memory"], pk
    assert pk["by_category"]["unknown"] == 0, pk
    assert t["memory_allocated_after_step"] == t["memory_allocated_before_step"], t
    outside[m] = t["memory_allocated_before_step"] - 4 * param_bytes - batch[m]
    mc = json.load(open(f"mc-{m}.json"))
    assert mc["allocated_equal"] == mc["events"] > 0, mc
    s = json.load(open(f"sim-{m}.json"))
    assert s["status"] == "ok" and s["overhead"] >= 1.0, s
assert outside["mlp"] > 0 and abs(outside["mlp"] - outside["transformer"]) <= 4096, outside
print(outside, "ok")
PY
echo ok
