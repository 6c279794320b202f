#!/usr/bin/env python3
"""Checks a recorded trace (converted to a DTR log by `gpumemsim convert --to dtr-log`) against
what the recorded job is known to have done. Used by tests/gpu/run.sh; prints one line per check
and exits 1 if any fails.

  check_trace.py mlp LOG --iters N --batch B          tests/gpu/mlp_train.c (exact checks)
  check_trace.py pytorch LOG --job JOB_STDOUT         scripts/examples/train.py (its JSON line)
"""
import argparse
import json
import sys

FAILED = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILED.append(what)


def load(path):
    """Events of a DTR log, with MEMORY lines folded into a size table."""
    events, size = [], {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            e = json.loads(line)
            if e["INSTRUCTION"] == "MEMORY":
                size[e["NAME"]] = int(e["MEMORY"])
            elif e["INSTRUCTION"] != "ALIAS":
                events.append(e)
    return events, size


def iterations(events):
    """The events of each iteration (from one iteration annotation to the next)."""
    its, cur = [], None
    for e in events:
        if e["INSTRUCTION"] == "ANNOTATE" and e.get("ANNOTATION") == "iteration":
            cur = {"value": int(e["VALUE"]) if "VALUE" in e else None, "events": []}
            its.append(cur)
        elif cur is not None:
            cur["events"].append(e)
    return its


def common(events, size):
    """Checks every trace must pass: ids defined before use, released at most once."""
    live, released, bad_use, bad_release = set(), set(), 0, 0
    for e in events:
        ins = e["INSTRUCTION"]
        if ins == "CONSTANT":
            live.add(e["NAME"])
        elif ins == "CALL":
            bad_use += sum(1 for a in e["ARGS"] if a not in live)
            live.update(e["RESULT"])
        elif ins == "RELEASE":
            if e["NAME"] not in live or e["NAME"] in released:
                bad_release += 1
            released.add(e["NAME"])
    check(bad_use == 0, f"every op input was defined before use ({bad_use} undefined)")
    check(bad_release == 0, f"every RELEASE names a live tensor once ({bad_release} bad)")
    check(all(n in size for n in live), "every tensor has a size")


def check_mlp(events, size, iters, batch):
    D, H, C, WS = 512, 1024, 10, 4 << 20
    const_sizes = sorted(size[e["NAME"]] for e in events if e["INSTRUCTION"] == "CONSTANT")
    for name, want in [("W1", D * H * 4), ("W2", H * C * 4), ("X", batch * D * 4),
                       ("Y", batch * C * 4), ("workspace", WS)]:
        check(want in const_sizes, f"constant {name} ({want} bytes) present")
    its = iterations(events)
    check(len(its) == iters, f"{iters} iterations (found {len(its)})")
    check(all(it["value"] == batch for it in its), f"iteration values are the batch size {batch}")
    want_ops = [("fc1", [batch * H * 4]), ("fc2", [batch * C * 4]), ("loss_grad", [batch * C * 4]),
                ("fc2_backward", [H * C * 4, batch * H * 4]), ("fc1_backward", [D * H * 4]),
                ("sgd", [])]
    for k, it in enumerate(its):
        calls = [e for e in it["events"] if e["INSTRUCTION"] == "CALL"]
        got = [(e["NAME"], [size[r] for r in e["RESULT"]]) for e in calls]
        check(got == want_ops, f"iteration {k}: ops and output sizes {got}")
        outs = {r for e in calls for r in e["RESULT"]}
        rel = {e["NAME"] for e in it["events"] if e["INSTRUCTION"] == "RELEASE"}
        check(outs <= rel, f"iteration {k}: every output released in the iteration")
        fc1 = calls[0] if calls else {"ARGS": []}
        arg_sizes = [size.get(a) for a in fc1["ARGS"]]
        check(D * H * 4 in arg_sizes and batch * D * 4 in arg_sizes,
              f"iteration {k}: fc1 reads W1 and X (input sizes {arg_sizes})")
        sgd = calls[-1] if calls else {"ARGS": []}
        sgd_sizes = sorted(size.get(a) for a in sgd["ARGS"])
        check(all(s in sgd_sizes for s in (D * H * 4, H * C * 4)) and
              sgd_sizes.count(D * H * 4) >= 2,
              f"iteration {k}: sgd reads W1, dW1, W2, dW2 (input sizes {sgd_sizes})")
        check(all(int(e["TIME"]) > 0 for e in calls), f"iteration {k}: every op has GPU time")


def check_pytorch(events, size, job_stdout):
    job = None
    with open(job_stdout) as f:
        for line in f:
            if line.startswith("gpumemsim-example: "):
                job = json.loads(line[len("gpumemsim-example: "):])
    check(job is not None, "the job printed its gpumemsim-example line")
    if job is None:
        return
    check("cudaMallocAsync" in job["alloc_conf"], "the job ran with backend:cudaMallocAsync")
    consts = [size[e["NAME"]] for e in events if e["INSTRUCTION"] == "CONSTANT"]
    want_n = job["param_count"] + job["optimizer_state_count"]
    check(len(consts) >= want_n,
          f"at least {want_n} constants (parameters + optimizer state), found {len(consts)}")
    want_b = job["param_bytes"] + job["optimizer_state_bytes"]
    check(sum(consts) >= want_b, f"constant bytes {sum(consts)} >= {want_b}")
    its = iterations(events)
    check([it["value"] for it in its] == job["sizes"],
          f"iteration values {[it['value'] for it in its]} == input sizes {job['sizes']}")
    names = []
    for k, it in enumerate(its):
        calls = [e for e in it["events"] if e["INSTRUCTION"] == "CALL"]
        names.append([e["NAME"] for e in calls])
        outs = sum(size[r] for e in calls for r in e["RESULT"])
        it["out_bytes"] = outs
        check(len(calls) >= 10, f"iteration {k}: {len(calls)} ops (>= 10)")
        check(sum(1 for n in names[-1] if n.startswith("aten::") or "Backward" in n) >= len(calls) // 2,
              f"iteration {k}: most ops are named after ATen ops / autograd nodes")
    flat = {n for ns in names for n in ns}
    if job["model"] == "resnet18":
        check(any("conv" in n for n in flat), "resnet18: convolution ops present")
        check(all(ns == names[0] for ns in names), "resnet18: every iteration has the same ops")
    if job["model"] == "gpt":
        check(any("linear" in n or "addmm" in n or "mm" in n for n in flat), "gpt: matmul ops present")
        by_size = sorted(zip(job["sizes"], [it["out_bytes"] for it in its]))
        check(all(a[1] < b[1] for a, b in zip(by_size, by_size[1:]) if a[0] < b[0]),
              f"gpt: longer sequences allocate more ({by_size})")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("kind", choices=["mlp", "pytorch"])
    p.add_argument("log")
    p.add_argument("--iters", type=int, default=3)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--job", help="pytorch: the job's stdout")
    a = p.parse_args()
    events, size = load(a.log)
    common(events, size)
    if a.kind == "mlp":
        check_mlp(events, size, a.iters, a.batch)
    else:
        check_pytorch(events, size, a.job)
    print(f"{a.log}: {len(FAILED)} checks failed" if FAILED else f"{a.log}: all checks passed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
