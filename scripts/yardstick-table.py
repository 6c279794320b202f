#!/usr/bin/env python3
"""Markdown tables of heuristics beside the optimum and the LP bound (docs/optimal.md, "The
yardstick"), from `gpumemsim db gaps DB --json`.

usage: scripts/yardstick-table.py DB [--policies dtr,dtr-eq,...] [--coarsen layers|none]
                                     [--gpumemsim PATH]

One table per trace: a row per budget ratio, each heuristic's overhead (oom where it failed),
the optimum's overhead (* = best found within the time limit, not proven; infeasible where no
schedule of the program fits), the LP bound's, the heuristic with the least overhead, and
dtr's gap to the optimum and to the bound (the DTR paper's claim is about dtr).
"""
import argparse
import json
import math
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("db")
    ap.add_argument("--policies", default="dtr,dtr-eq,msps,lru,ckpt-sqrt,mimose")
    ap.add_argument("--coarsen", default=None, help="only answers of this program")
    ap.add_argument("--gpumemsim", default="build/cli/gpumemsim")
    a = ap.parse_args()
    pols = a.policies.split(",")
    rows = json.loads(subprocess.run([a.gpumemsim, "db", "gaps", a.db, "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    traces = {}
    for r in rows:
        if r["coarsen"] is None or (a.coarsen and r["coarsen"] != a.coarsen):
            continue
        t = traces.setdefault(r["trace"], {})
        b = t.setdefault(round(r["ratio"], 6), {"runs": {}})
        b["sol"] = r  # the solution's fields are the same on every row of this budget
        if r["policy"] in pols:
            b["runs"][r["policy"]] = r
    for name in sorted(traces):
        t = traces[name]
        some = next(iter(t.values()))["sol"]
        print(f"\n{name} ({some['nodes']} nodes, {some['coarsen']})\n")
        print("| budget | " + " | ".join(pols) +
              " | optimum | LP bound | best heuristic | dtr's gap to the optimum | to the bound |")
        print("|---" * (len(pols) + 6) + "|")
        for ratio in sorted(t):
            b = t[ratio]
            s = b["sol"]
            cells = []
            best = None
            for p in pols:
                r = b["runs"].get(p)
                if r is None:
                    cells.append("")
                elif r["overhead"] is None:
                    cells.append(r["status"])
                else:
                    cells.append(f"{r['overhead']:.4f}")
                    if best is None or r["overhead"] < best["overhead"]:
                        best = r
            if s["solver_status"] == "infeasible":
                opt = "infeasible"
            elif s["opt_overhead"] is None:
                opt = s["solver_status"]
            else:
                opt = f"{s['opt_overhead']:.4f}" + ("" if s["proven"] else "*")
            lb = "" if s["bound_overhead"] is None else f"{s['bound_overhead']:.4f}"
            bn = best["policy"] if best else "none ran"
            d = b["runs"].get("dtr")
            go = d["gap_optimum"] if d else None
            gb = d["gap_bound"] if d else None
            gos = "" if go is None else f"{100 * go:+.1f}%"
            gbs = "" if gb is None else f"{100 * gb:+.1f}%"
            print(f"| {ratio:g} | " + " | ".join(cells) + f" | {opt} | {lb} | {bn} | {gos} | {gbs} |")


if __name__ == "__main__":
    sys.exit(main())
