#!/usr/bin/env bash
# The Kineto join (traces/import_et_kineto.c, docs/import-pytorch.md): measured op costs.
#  - DLRM (the same step in both files): one to one; the summed op costs are within 2% of the
#    GPU time (kernels, memcpys, memsets) launched inside the ET's operators, computed here
#    from the Kineto file alone, and within 2.5% of all the trace's GPU time (the rest is
#    FBGEMM backward kernels launched by autograd nodes outside any operator);
#  - linear (1 ET step, 40 Kineto steps): step by step; the step's cost is within 5% of the
#    median Kineto step's GPU time (steps end with Optimizer.step, launches counted by time);
#  - the ResNet-50 ET with the ResNet-18 Kineto trace, and the linear ET with DLRM's Kineto
#    trace (another run), are refused: the Kineto file named, a non-zero exit, no output;
#  - pairing checks (traces/import_et_pairing.c): DLRM's Kineto trace made another rank's
#    (another pid, rank 2, GPU 2) or run on another GPU is refused with both values named,
#    joined with --kineto-force (the header says FORCED); the per-step inputs are priced on
#    the Kineto trace's GPU (V100, and A100 when its deviceProperties say so).
. "$(dirname "$0")/common.sh"
ET=$GMS_SHARED_DIR/traces/pytorch-et
[ -d "$ET" ] || fail "missing test data $ET"
mkdir -p "$T/out"

"$GMS_BIN" info --json "$ET/dlrm_rank0_et.json.gz" --kineto "$ET/dlrm_rank0_kineto.json.gz" \
  >"$T/dlrm.json" || fail "info dlrm --kineto"
"$GMS_BIN" info --json "$ET/linear_et.json.gz" --kineto "$ET/linear_kineto.json.gz" \
  >"$T/linear.json" || fail "info linear --kineto"
python3 - "$ET" "$T/dlrm.json" "$T/linear.json" <<'PY' || fail "kineto join numbers"
import gzip, json, statistics, sys
et_dir, dlrm_info, linear_info = sys.argv[1:]

def kineto(name):
    return json.load(gzip.open(f"{et_dir}/{name}_kineto.json.gz"))["traceEvents"]

def gpu_with_launch(ev):
    rt = {e["args"]["correlation"]: e for e in ev if e.get("cat") == "cuda_runtime"}
    return [(g, rt.get(g["args"].get("correlation"))) for g in ev
            if g.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]

# DLRM: one step in both
d = json.load(open(dlrm_info))
assert d["meta"]["kineto_join"] == "one to one", d["meta"]
ev = kineto("dlrm_rank0")
et = json.load(gzip.open(f"{et_dir}/dlrm_rank0_et.json.gz"))
op_names = {n["name"] for n in et["nodes"] if n.get("op_schema")}
cpu = [e for e in ev if e.get("cat") == "cpu_op" and e["name"] in op_names]
all_ns = in_ops_ns = 0
for g, r in gpu_with_launch(ev):
    all_ns += g["dur"] * 1000
    if r and any(c["tid"] == r["tid"] and c["ts"] <= r["ts"] <= c["ts"] + c["dur"] for c in cpu):
        in_ops_ns += g["dur"] * 1000
cost = d["baseline_compute"]
print(f"dlrm: ops {cost} ns, GPU time in ET operators {in_ops_ns} ns ({cost / in_ops_ns - 1:+.2%}),"
      f" all GPU time {all_ns} ns ({cost / all_ns - 1:+.2%})")
assert abs(cost / in_ops_ns - 1) <= 0.02
assert abs(cost / all_ns - 1) <= 0.025
assert int(d["meta"]["kineto_gpu_ns"]) == all_ns
uncosted = int(d["meta"]["et_ops_without_cost"])
assert uncosted <= 0.02 * int(d["meta"]["et_ops"]), uncosted

# linear: 1 ET step against 40 Kineto steps
d = json.load(open(linear_info))
assert d["meta"]["kineto_join"] == "step by step" and d["meta"]["kineto_steps"] == "40", d["meta"]
ev = kineto("linear")
ends = sorted(e["ts"] + e["dur"] for e in ev
              if e.get("cat") == "user_annotation" and e["name"].startswith("Optimizer.step"))
steps = [0] * (len(ends) + 1)
for g, r in gpu_with_launch(ev):
    steps[sum(1 for t in ends if t <= r["ts"])] += g["dur"] * 1000
steps = [s for s in steps if s]
assert len(steps) == 40, len(steps)
med = statistics.median(steps)
cost = d["baseline_compute"]
print(f"linear: step {cost} ns, median Kineto step {med:.0f} ns ({cost / med - 1:+.2%})")
assert abs(cost / med - 1) <= 0.05
assert d["meta"]["et_ops_without_cost"] == "0"
PY

# refused: another model, and another run (another process: both pids named); forced past
# that, the join's own rule still refuses (too few ops match); convert leaves no file, info
# fails too
refuse() {
  local et=$1 k=$2 et_pid=$3 k_pid=$4
  expect_fail "$et + $k convert" "$GMS_BIN" convert "$ET/$et" --kineto "$ET/$k" -o "$T/out/x.gmt"
  expect_err_matches "$et + $k" "the Kineto trace $ET/$k is not of this run: the ET was recorded by process $et_pid, the Kineto trace by process $k_pid .*--kineto-force"
  [ -z "$(ls -A "$T/out")" ] || fail "$et + $k: left files behind: $(ls -A "$T/out")"
  expect_fail "$et + $k forced" "$GMS_BIN" convert "$ET/$et" --kineto "$ET/$k" --kineto-force -o "$T/out/x.gmt"
  expect_err_matches "$et + $k forced" "$ET/$k: this Kineto trace is not of the Execution Trace's run: only [0-9]+ of [0-9]+ ET ops .*pass the Kineto trace torch.profiler recorded with this ET"
  [ -z "$(ls -A "$T/out")" ] || fail "$et + $k forced: left files behind: $(ls -A "$T/out")"
  expect_fail "$et + $k info" "$GMS_BIN" info "$ET/$et" --kineto "$ET/$k"
}
refuse resnet50_ddp_et.json.gz resnet18_30steps_kineto.json.gz 1734239 23442
expect_fail "resnet sim" "$GMS_BIN" sim "$ET/resnet50_ddp_et.json.gz" --kineto "$ET/resnet18_30steps_kineto.json.gz" --budget 0.5
expect_err_matches "resnet sim" "resnet18_30steps_kineto.json.gz is not of this run: the ET was recorded by process"
# sim replays with the measured costs: its baseline is info's
"$GMS_BIN" sim "$ET/linear_et.json.gz" --kineto "$ET/linear_kineto.json.gz" --budget 1.0 --json >"$T/sim.json" || fail "sim --kineto"
python3 -c 'import json, sys; s, i = (json.load(open(f)) for f in sys.argv[1:]); assert s["baseline_compute"] == i["baseline_compute"] > 0' "$T/sim.json" "$T/linear.json" || fail "sim --kineto baseline differs from info --kineto"
refuse linear_et.json.gz dlrm_rank0_kineto.json.gz 24248 59811

# another rank of the same job: the same calls, another process, rank and GPU
python3 - "$ET/dlrm_rank0_kineto.json.gz" "$T" <<'PY' || fail "making the other rank's Kineto trace"
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
def variant(name, pid=None, device=None, gpu=None, rank=None):
    e = json.loads(json.dumps(d))
    for ev in e["traceEvents"]:
        if pid is not None and ev.get("pid") == 59811:
            ev["pid"] = pid
        if device is not None and ev.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            ev["args"]["device"] = device
    if gpu:
        e["deviceProperties"][0]["name"] = gpu
    if rank is not None:
        e["distributedInfo"]["rank"] = rank
    json.dump(e, gzip.open(f"{sys.argv[2]}/{name}.json.gz", "wt"))
variant("rank2", pid=60123, device=2, rank=2)
variant("gpu2", device=2)
variant("a100", gpu="NVIDIA A100-SXM4-40GB")
PY
D=$ET/dlrm_rank0_et.json.gz
expect_fail "rank 2" "$GMS_BIN" convert "$D" --kineto "$T/rank2.json.gz" -o "$T/out/x.gmt"
expect_err_matches "rank 2" "is not of this run: the ET was recorded by process 59811, the Kineto trace by process 60123"
expect_fail "gpu 2" "$GMS_BIN" sim "$D" --kineto "$T/gpu2.json.gz" --budget 1.0
expect_err_matches "gpu 2" "the ET's tensors are on cuda:0, the Kineto trace's kernels ran on GPU 2"
expect_fail "force without kineto" "$GMS_BIN" info "$D" --kineto-force
expect_err_matches "force without kineto" "give --kineto"
[ -z "$(ls -A "$T/out")" ] || fail "refused pairings left files behind: $(ls -A "$T/out")"
"$GMS_BIN" convert "$D" --kineto "$T/rank2.json.gz" --kineto-force -q -o "$T/forced.gmt" ||
  fail "--kineto-force"
"$GMS_BIN" info --json "$T/forced.gmt" >"$T/forced.json" || fail "info of the forced .gmt"
"$GMS_BIN" info --json "$D" --kineto "$T/a100.json.gz" >"$T/a100.json" || fail "info a100"
python3 - "$T/forced.json" "$T/dlrm.json" "$T/a100.json" <<'PY' || fail "pairing and cost headers"
import json, sys
forced, dlrm, a100 = (json.load(open(p))["meta"] for p in sys.argv[1:])
assert forced["kineto_pairing"].startswith("FORCED (--kineto-force): the ET was recorded by "
                                           "process 59811, the Kineto trace by process 60123"), forced
assert "rank 2 of 8" in forced["kineto_pairing"], forced["kineto_pairing"]
assert dlrm["kineto_pairing"].startswith("pid 59811, device cuda:0"), dlrm["kineto_pairing"]
# the header's GPUs agree: step inputs on the Kineto trace's GPU
assert "V100" in dlrm["cost_gpu"] and dlrm["step_input_costs"].startswith("estimated on v100 (the Kineto trace's GPU"), dlrm
assert "A100" in a100["cost_gpu"] and a100["step_input_costs"].startswith("estimated on a100 (the Kineto trace's GPU"), a100
PY

# not a Kineto trace, and one without GPU events
printf '{"schema": 1}\n' >"$T/notk.json"
expect_fail "not kineto" "$GMS_BIN" convert "$ET/linear_et.json.gz" --kineto "$T/notk.json" -o "$T/out/x.gmt"
expect_err_matches "not kineto" "$T/notk.json: not a Kineto trace"
printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "ts": 1, "dur": 2, "tid": 1}]}\n' >"$T/nogpu.json"
expect_fail "no gpu" "$GMS_BIN" convert "$ET/linear_et.json.gz" --kineto "$T/nogpu.json" -o "$T/out/x.gmt"
expect_err_matches "no gpu" "$T/nogpu.json: the Kineto trace holds no GPU kernel"
[ -z "$(ls -A "$T/out")" ] || fail "left files behind: $(ls -A "$T/out")"
# a trace with its own costs takes no --kineto
expect_fail "gmt --kineto" "$GMS_BIN" convert "$T/dlrm.json" --kineto "$T/nogpu.json" -o "$T/out/y.gmt"
# sweep takes no --kineto, and says what to do instead; it creates no store
expect_fail "sweep --kineto" "$GMS_BIN" sweep "$ET/linear_et.json.gz" --kineto "$T/nogpu.json" \
  --db "$T/out/s.db"
expect_err_matches "sweep --kineto" "convert the Execution Trace with its timings first"
[ -z "$(ls -A "$T/out")" ] || fail "sweep --kineto left files behind: $(ls -A "$T/out")"
echo ok
