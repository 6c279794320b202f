"""The gpumemsim Python module against the CLI (docs/plugins.md, "Python").

Usage: test_binding.py [TRACE]   (default: the committed unet sample)
Environment: GMS_BIN (the gpumemsim CLI), GMS_SOURCE_DIR, GMS_PLUGIN_DTR_LOCAL (the test
plugin computing dtr-local), PYTHONPATH with the built module.

Checks that sim() returns exactly `gpumemsim sim --json`'s dictionary for built-in policies,
swapping policies with their link and host memory, checkpoint planners and a plugin, that Python transcriptions of simrd's formulas (dtr-local, dtr, dtr-eq, lru)
choose exactly like the built-ins, and that failing scores end the run with clear errors.
"""
import json
import math
import os
import subprocess
import sys

import gpumemsim

SRC = os.environ["GMS_SOURCE_DIR"]
BIN = os.environ["GMS_BIN"]
PLUGIN = os.environ["GMS_PLUGIN_DTR_LOCAL"]
TRACE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(SRC, "traces/samples/unet-small.gmt")
BUDGETS = [0.4, 0.55, 0.7]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def cli(policy, budget, *extra):
    out = subprocess.run([BIN, "sim", TRACE, "--policy", policy, "--budget", repr(budget),
                          "--json", *extra], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def same(got, want, ignore=("wall_s",)):
    """Equal keys and values (2 == 2.0: the CLI's JSON writes integral doubles bare)."""
    a = {k: v for k, v in got.items() if k not in ignore}
    b = {k: v for k, v in want.items() if k not in ignore}
    return a == b and set(got) == set(want)


def diff(got, want):
    return {k: (got.get(k), want.get(k)) for k in set(got) | set(want)
            if k != "wall_s" and got.get(k) != want.get(k)}


trace = gpumemsim.load(TRACE)
check(trace.path == TRACE, "Trace.path")
check(trace.baseline["memory"] == cli("dtr", 0.5)["baseline_memory"], "Trace.baseline")

# built-in policies, by name and as a path string: the CLI's dictionary exactly
for b in BUDGETS:
    for p in ("dtr", "dtr-local", "dtr-eq", "lru", "msps", "size"):
        got, want = gpumemsim.sim(trace, budget=b, policy=p), cli(p, b)
        check(same(got, want), f"{p} at {b}: {diff(got, want)}")
got, want = gpumemsim.sim(TRACE, budget=0.5, policy="random", seed=3), cli("random", 0.5, "--seed", "3")
check(same(got, want), f"random seed 3: {diff(got, want)}")
got = gpumemsim.sim(trace, budget=0.55, policy="dtr", allocator="caching",
                    alloc_conf="max_split_size_mb:20")
want = cli("dtr", 0.55, "--allocator", "caching", "--alloc-conf", "max_split_size_mb:20")
check(same(got, want), f"dtr with the caching allocator: {diff(got, want)}")
got, want = gpumemsim.sim(trace, budget=0.55, policy="dtr", sample="sqrt"), cli("dtr", 0.55, "--sample", "sqrt")
check(same(got, want), f"dtr sampled: {diff(got, want)}")
got, want = gpumemsim.sim(trace, policy="lru"), json.loads(subprocess.run(
    [BIN, "sim", TRACE, "--policy", "lru", "--json"], check=True, capture_output=True,
    text=True).stdout)
check(same(got, want), f"no budget: {diff(got, want)}")

# a C plugin loaded by the module (its sim_view_* calls resolve into libgpumemsim.so)
for b in BUDGETS:
    got, want = gpumemsim.sim(trace, budget=b, policy=PLUGIN), cli(PLUGIN, b)
    check(same(got, want), f"plugin at {b}: {diff(got, want)}")
    # where it peaked too, as the built-in it computes (the CLI follows it in its child)
    check(got["peak_at"] is not None and got["peak_at"] == cli("dtr-local", b)["peak_at"],
          f"plugin at {b}: peak_at {got['peak_at']}")

# simrd's formulas written in Python choose exactly like the built-ins: the results equal
# the built-in's in everything but the policy's name
formulas = {
    "dtr-local": (lambda s: s.compute / (s.size * s.staleness), ()),
    "dtr": (lambda s: (s.compute + s.region_fwd_cost + s.region_rev_cost)
            / (s.size * s.staleness), ("regions",)),
    "dtr-eq": (lambda s: (s.compute + s.eqclass_cost) / (s.size * s.staleness), ("eqclass",)),
    "lru": (lambda s: s.last_access, ()),
}
for b in BUDGETS:
    for p, (fn, needs) in formulas.items():
        got = gpumemsim.sim(trace, budget=b, score=fn, needs=needs, name="py-" + p)
        want = cli(p, b)
        check(got["policy"] == "py-" + p, f"policy name {got['policy']}")
        check(same(got, want, ("wall_s", "policy")), f"Python {p} at {b}: {diff(got, want)}")
# ZeroDivisionError is +inf, like gpumemsim.ratio (sim_score_ratio)
check(gpumemsim.ratio(3, 0, 5) == math.inf and gpumemsim.ratio(1, 3, 1) == 1 / 3, "ratio()")
got = gpumemsim.sim(trace, budget=0.55, score=lambda s: gpumemsim.ratio(s.compute, s.size, s.staleness))
check(same(got, cli("dtr-local", 0.55), ("wall_s", "policy")), "ratio() as the score")


def error_of(**kw):
    try:
        gpumemsim.sim(trace, budget=0.4, **kw)
    except Exception as e:  # noqa: BLE001 - the test looks at whatever was raised
        return e
    return None


# an exception in the score ends the run, naming the policy and the exception
def boom(s):
    if s.staleness < 1000:
        raise ValueError("boom")
    return 1.0


e = error_of(score=boom, name="exploding")
check(isinstance(e, gpumemsim.Error), f"exception in score raised {e!r}")
check("policy 'exploding'" in str(e) and "ValueError: boom" in str(e), f"message: {e}")
check(isinstance(e.__cause__, ValueError), f"cause {e.__cause__!r}")
def interrupt(s):
    raise KeyboardInterrupt


try:
    gpumemsim.sim(trace, budget=0.4, score=interrupt)
    check(False, "a KeyboardInterrupt in the score was swallowed")
except KeyboardInterrupt:
    pass  # stays what it is, so Ctrl-C stops a slow Python run
e = error_of(score=lambda s: math.nan, name="nan-py")
check(isinstance(e, gpumemsim.Error) and "policy 'nan-py' scored storage" in str(e)
      and "NaN" in str(e), f"NaN score: {e!r}")
e = error_of(score=lambda s: s.region_fwd_cost)
check(isinstance(e, gpumemsim.Error) and "needs=('regions',)" in str(e), f"regions: {e!r}")
e = error_of(score=lambda s: "high")
check(isinstance(e, gpumemsim.Error) and "TypeError" in str(e), f"a str score: {e!r}")
kept = []
e = error_of(score=lambda s: kept.append(s) or 1.0)
check(e is None and kept, f"keeping storages: {e!r}")
try:
    kept[0].size
    check(False, "a kept Storage still reads the run")
except RuntimeError as x:
    check("valid only during the score call" in str(x), f"stale storage: {x}")
for kw, exc, text in [
    (dict(policy="dtr", score=len), TypeError, "not both"),
    (dict(policy="nosuch"), gpumemsim.Error, "unknown policy 'nosuch'"),
    (dict(score=len, name="dtr"), ValueError, "no built-in policy has"),
    (dict(score=len, needs=("nope",)), ValueError, "unknown 'nope'"),
    (dict(policy="dtr", allocator="nope"), ValueError, "unknown allocator"),
]:
    e = error_of(**kw)
    check(isinstance(e, exc) and text in str(e), f"{kw}: {e!r}")
for kw, exc, text in [
    (dict(budget=2000), ValueError, "budget_bytes"),
    (dict(budget=0.5, budget_bytes=10), TypeError, "not both"),
]:
    try:
        gpumemsim.sim(trace, **kw)
        e = None
    except Exception as x:  # noqa: BLE001
        e = x
    check(isinstance(e, exc) and text in str(e), f"{kw}: {e!r}")

# swapping policies with link= and host_memory= (docs/swap.md): the CLI's dictionary, "swap"
# included, on a preset and on explicit figures, with and without a host-memory limit
for p in ("swap-lru", "hybrid", "capuchin", "autoswap"):
    for link, host in (("pcie3", None), ("12.2,47", 1 << 30)):
        extra = ["--link", link] + (["--host-memory", str(host)] if host else [])
        got = gpumemsim.sim(trace, budget=0.5, policy=p, link=link, host_memory=host)
        want = cli(p, 0.5, *extra)
        check(same(got, want) and "swap" in got, f"{p} {link} {host}: {diff(got, want)}")
got = gpumemsim.sim(trace, budget=0.5, policy="swap-lru")  # the default link, pcie4
check(got["swap"]["link_gbps"] == 31.5 and got["swap"]["host_memory"] is None
      and got["swap"]["swap_in_bytes"] <= got["swap"]["swap_out_bytes"], f"default link: {got}")
check("swap" not in gpumemsim.sim(trace, budget=0.5, policy="dtr"), "dtr has a swap object")

# checkpoint planners (docs/planners.md) with policy_args: "policy_args", "planner" and
# "iterations" as the CLI's, but for the planner's own wall time (plan_s, plan_ns)
PLANNED = os.path.join(SRC, "traces/samples/transformer-small.gmt")


def unclocked(d):
    d = dict(d)
    if "planner" in d:
        d["planner"] = {k: v for k, v in d["planner"].items() if k != "plan_s"}
        d["iterations"] = [{k: v for k, v in i.items() if k != "plan_ns"}
                           for i in d["iterations"]]
    return d


for p, args in (("ckpt-all", None), ("ckpt-sqrt", None), ("mimose", "warmup=2, bucket=64"),
                ("mimose-static", None)):
    got = gpumemsim.sim(PLANNED, budget=0.8, policy=p, policy_args=args)
    want = json.loads(subprocess.run(
        [BIN, "sim", PLANNED, "--policy", p, "--budget", "0.8", "--json"]
        + (["--policy-args", args] if args else []),
        check=True, capture_output=True, text=True).stdout)
    got, want = unclocked(got), unclocked(want)
    check(same(got, want) and got["iterations"] and "planner" in got,
          f"{p} {args}: {diff(got, want)}")
check(gpumemsim.sim(PLANNED, budget=0.8, policy="mimose", policy_args="warmup=2, bucket=64")
      ["policy_args"] == "bucket=64,warmup=2", "policy_args are not canonical")

for kw, exc, text in [
    (dict(policy="dtr", link="pcie3"), ValueError, "never swaps to host memory"),
    (dict(policy="dtr", host_memory=1 << 30), ValueError, "never swaps to host memory"),
    (dict(policy="swap-lru", link="pcie9"), ValueError, "pcie3"),
    (dict(policy="swap-lru", link="0"), ValueError, "link:"),
    (dict(policy="swap-lru", host_memory=1), ValueError, "smallest tensor"),
    (dict(policy="swap-lru", host_memory="64GiB"), ValueError, "positive byte count"),
    (dict(policy="swap-lru", allocator="caching"), gpumemsim.Error, "ideal memory model"),
    (dict(score=len, link="pcie3"), ValueError, "never swaps"),
    (dict(policy="dtr", policy_args="warmup=1"), ValueError, "takes none"),
    (dict(policy="ckpt-all", link="pcie3"), ValueError, "never swaps to host memory"),
    (dict(policy="mimose", policy_args="warmup"), ValueError, "policy_args:"),
    (dict(policy="mimose", policy_args="nosuch=1"), gpumemsim.Error, "nosuch"),
]:
    e = error_of(**kw)
    check(isinstance(e, exc) and text in str(e), f"{kw}: {e!r}")
try:
    gpumemsim.load(os.path.join(SRC, "no-such-trace.gmt"))
    check(False, "loading a missing file succeeded")
except gpumemsim.Error as x:
    check("no-such-trace.gmt" in str(x), f"missing file: {x}")

if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("ok")
