"""What a new user of the Python module met (issue 32, items 7 and 14), against the CLI.

Usage: test_new_user.py [ET_DIR]   (ET_DIR: the shared PyTorch Execution Traces, for kineto=)
Environment: GMS_BIN (the gpumemsim CLI), GMS_SOURCE_DIR, PYTHONPATH with the built module.

Checks that a bad budget's message is filled in and the ratio cap is the CLI's, that
Trace.baseline['ops'] counts ops as `gpumemsim info` does, that the unknown-policy message
names what sim() runs (planners included) and says what checkmate is, and that kineto= loads an
Execution Trace with its Kineto timings exactly as `sim --kineto` does.
"""
import json
import os
import subprocess
import sys

import gpumemsim

SRC = os.environ["GMS_SOURCE_DIR"]
BIN = os.environ["GMS_BIN"]
TRACE = os.path.join(SRC, "traces/samples/unet-small.gmt")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def raises(fn, exc, *needles):
    try:
        fn()
    except exc as e:
        msg = str(e)
        for n in needles:
            check(n in msg, f"message {msg!r} lacks {n!r}")
        check("%" not in msg, f"unfilled format in {msg!r}")
        return msg
    check(False, f"{fn} did not raise {exc.__name__}")
    return ""


def cli(*args):
    return subprocess.run([BIN, *args], check=True, capture_output=True, text=True).stdout


trace = gpumemsim.load(TRACE)

# item 14: the budget's message is filled in; ratios are capped where the CLI caps them
raises(lambda: gpumemsim.sim(trace, budget=-1), ValueError, "(0, 10]", "budget_bytes=")
raises(lambda: gpumemsim.sim(trace, budget=11), ValueError, "(0, 10]")
cli_refused = subprocess.run([BIN, "sim", TRACE, "--budget", "11"], capture_output=True)
check(cli_refused.returncode != 0, "the CLI takes --budget 11, so the cap differs")
check(gpumemsim.sim(trace, budget=10)["status"] == "ok", "budget=10 (the cap) refused")

# item 14: ops as info counts them (CALL + MUTATE, constants not ops)
info = json.loads(cli("info", "--json", TRACE))
check(trace.baseline["ops"] == info["ops"],
      f"Trace.baseline['ops'] {trace.baseline['ops']}, info says {info['ops']}")
check(trace.baseline["memory"] == info["baseline_memory"], "baseline memory differs from info")

# item 7: the unknown-policy message names every name sim() runs, and checkmate's kind
listing = [line.split()[0] for line in cli("sim", "--list-policies").splitlines()]
msg = raises(lambda: gpumemsim.sim(trace, budget=0.5, policy="nope"), gpumemsim.Error,
             "unknown policy 'nope'", "checkpoint planners:")
for p in gpumemsim.policies():
    check(p in listing, f"policies() has {p}, which --list-policies lacks")
    check(p in msg, f"the unknown-policy message lacks {p}: {msg}")
check("ckpt-all" in gpumemsim.policies(), "policies() lacks the planners sim() runs")
check("checkmate" not in gpumemsim.policies(), "policies() lists checkmate, which sim() refuses")
raises(lambda: gpumemsim.sim(trace, budget=0.5, policy="checkmate"), gpumemsim.Error,
       "'checkmate' is a solved schedule")

# item 14: kineto=, as the CLI's --kineto; refused where it cannot apply
raises(lambda: gpumemsim.sim(trace, budget=0.5, kineto=TRACE), TypeError, "gpumemsim.load")
raises(lambda: gpumemsim.load(TRACE, kineto=TRACE), gpumemsim.Error, "Execution Trace only")
if len(sys.argv) > 1:
    et = os.path.join(sys.argv[1], "linear_et.json.gz")
    kin = os.path.join(sys.argv[1], "linear_kineto.json.gz")
    want = json.loads(cli("sim", et, "--kineto", kin, "--budget", "0.7", "--json"))
    got = gpumemsim.sim(et, budget=0.7, kineto=kin)
    plain = gpumemsim.sim(et, budget=0.7)
    for k in ("baseline_compute", "clock", "overhead", "evictions", "remats"):
        check(got[k] == want[k], f"kineto=: {k} {got[k]} != the CLI's {want[k]}")
    check(plain["baseline_compute"] != got["baseline_compute"],
          "kineto= changed no cost: the timings were not used")
    t = gpumemsim.load(et, kineto=kin)
    check(t.baseline["compute"] == want["baseline_compute"], "load(kineto=) compute")

if failures:
    sys.exit(f"{len(failures)} failure(s)")
print("ok")
