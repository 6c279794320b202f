#!/usr/bin/env python3
"""Fidelity of predicted slowdowns against the DTR prototype's measurements (docs/fidelity.md).

For each model in a measurements CSV (../shared/reference/dtr-prototype-measured.csv format):
calibrate the per-op overhead at the model's largest budget (gpumemsim calibrate), then
predict every other budget with 'gpumemsim sim --op-overhead' and compare with the measured
slowdown. Each row is replayed with the prototype's own setting for it: dtr-proto when it
sampled candidates, dtr-proto-all when it scanned them all (use_sampling). Sampled rows run
--seeds seeds: the prediction is their mean when every seed finished, else the median (and
the row says how many stopped); the "seeds" column counts the seeds within 10% of the
measurement and gives the worst seed as a multiple of it. Prints markdown tables.

usage: scripts/fidelity.py [--bin build/cli/gpumemsim] [--csv CSV] [--traces DIR]
                           [--seeds N] [--policy P (instead of the row's setting)]
"""
import argparse
import csv
import glob
import json
import os
import subprocess
import sys


def run(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(here)
    shared = os.path.join(root, "..", "shared")
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(root, "build", "cli", "gpumemsim"))
    ap.add_argument("--csv", default=os.path.join(shared, "reference", "dtr-prototype-measured.csv"))
    ap.add_argument("--traces", default=os.path.join(shared, "traces", "dtr-iclr21"))
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--band", default="2%")
    ap.add_argument("--policy", default=None)
    a = ap.parse_args()

    rows = {}
    with open(a.csv) as f:
        for r in csv.DictReader(f):
            if r["type"] == "dtr":
                rows.setdefault((r["model"], r["batch_size"]), []).append(r)
    worst = 0.0
    for (model, batch), rs in rows.items():
        logs = glob.glob(os.path.join(a.traces, f"{model}-{batch}-*.log"))
        if not logs:
            print(f"no log for {model} batch {batch}", file=sys.stderr)
            continue
        log = logs[0]
        rs.sort(key=lambda r: -int(r["memory_budget_bytes"]))

        def policy(r):
            if a.policy:
                return a.policy
            return "dtr-proto" if r["use_sampling"] == "True" else "dtr-proto-all"

        def seeds(p):
            return str(a.seeds) if p == "dtr-proto" else "1"

        top = rs[0]
        p = policy(top)
        cal = run([a.bin, "calibrate", log, "--budget", top["memory_budget_bytes"] + "B",
                   "--measured", top["slowdown"], "--policy", p, "--seeds", seeds(p), "--json"])
        ovh = cal["op_overhead_ns"]
        print(f"\n### {model} (batch {batch}): op overhead {ovh / 1e3:.2f} us, calibrated at "
              f"{int(top['memory_budget_bytes']) / 1e9:g} GB with {p} "
              f"({cal['simulations']} simulations)\n")
        print("| budget | policy | measured | ideal | predicted | error | seeds within 10% "
              "(worst / measured) | remat measured | remat simulated | op overhead paid | "
              "band +-" + a.band + " |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in rs:
            p = policy(r)
            b = r["memory_budget_bytes"] + "B"
            ideal = run([a.bin, "sim", log, "--budget", b, "--policy", p, "--seeds", seeds(p),
                         "--json"])
            pred = run([a.bin, "sim", log, "--budget", b, "--policy", p, "--seeds", seeds(p),
                        "--op-overhead", f"{ovh}ns", "--budget-band", a.band, "--json"])
            m = float(r["slowdown"])

            def value(d):
                """The prediction: the mean where every seed finished, else the median."""
                if "seeds" not in d:
                    return d["overhead"]
                sd = d["seeds"]
                return sd["overhead_mean"] if sd["all_finished"] else sd["overhead_median"]

            def shown(d):
                v = value(d)
                if "seeds" not in d:
                    return f"{v:.4f}"
                sd = d["seeds"]
                if sd["all_finished"]:
                    return f"{v:.4f} +-{sd['overhead_sd']:.3f}"
                stopped = sd["runs"] - sd["ok"]
                med = "stopped" if v is None else f"{v:.4f}"
                return f"median {med} ({stopped} of {sd['runs']} seeds stopped)"

            def spread(d):
                if "seeds" not in d:
                    return "-"
                each = d["seeds"]["overheads"]
                near = sum(1 for x in each if x is not None and abs(x - m) / m <= 0.10)
                worst = max((x if x is not None else float("inf")) for x in each)
                return f"{near}/{len(each)} ({worst / m:.2f})"

            v = value(pred)
            err = (v - m) / m if v is not None else float("inf")
            if r is not top:
                worst = max(worst, abs(err))
            bb = pred["budget_band"]
            band = "cliff" if bb["cliff"] else "flat"
            if bb["sensitivity"] is not None:
                band += f" ({bb['sensitivity'] * 100:.1f}%)"
            print(f"| {int(r['memory_budget_bytes']) / 1e9:g} GB{' (calibrated)' if r is top else ''} "
                  f"| {p} | {m:.4f} | {shown(ideal)} | {shown(pred)} "
                  f"| {err * 100:+.1f}% | {spread(pred)} "
                  f"| {float(r['remat_compute_time_ms']):.1f} ms "
                  f"| {pred['remat_compute'] / 1e6:.1f} ms | {pred['op_overhead_ns'] / 1e6:.1f} ms "
                  f"| {band} |")
    print(f"\nworst error over the predicted (not calibrated) budgets: {worst * 100:.1f}%")


if __name__ == "__main__":
    main()
