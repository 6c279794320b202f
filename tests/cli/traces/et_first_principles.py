#!/usr/bin/env python3
"""The baseline peak of a PyTorch Execution Trace from first principles, read from the ET's own
tensor sizes, independently of gpumemsim's importer (tests/cli/traces/import_et_peak.sh).

Per training step (ProfilerStep#N; one step without them), with storages told apart by their
storage id and a new one each time an op outputs onto an id it does not read (the allocator
reused the address):
  P  parameters and buffers: storages an op reads before any op made them
  A  saved activations: made in the step's forward, read by its backward (all alive when the
     backward starts)
  G  gradients: made in the backward, read by the optimizer step (Optimizer.step#...)
  O  optimizer state: made in the optimizer step, written in place there by an op that also
     reads a gradient
  T  the step's largest temporaries: the most bytes one optimizer op makes beyond the state
The peak is the larger of P + A (the backward's start) and P + G + O + T (the optimizer step,
where the in-place updates add nothing). Prints {"P": .., step: {A, G, O, T, forward, step}},
"peak": ..} as JSON.
"""
import gzip
import json
import sys

def load(p):
    d = json.load(gzip.open(p))
    out = []
    for n in d["nodes"]:
        if "ctrl_deps" in n:
            attrs = {a["name"]: a["value"] for a in n.get("attrs", [])}
            ins, outs = n["inputs"]["values"], n["outputs"]["values"]
            par, schema = n["ctrl_deps"], attrs.get("op_schema", "")
        else:
            ins, outs, par, schema = n["inputs"], n["outputs"], n["parent"], n.get("op_schema", "")
        out.append(dict(id=n["id"], name=n["name"], parent=par, ins=ins, outs=outs, schema=schema or ""))
    return out

def tensors(v):
    if isinstance(v, list) and len(v) == 6 and isinstance(v[5], str) and all(isinstance(x, int) for x in v[:5]):
        if v[5].startswith("cuda"):
            yield v
    elif isinstance(v, list):
        for x in v:
            yield from tensors(x)

nodes = sorted(load(sys.argv[1]), key=lambda n: n["id"])
by_id = {n["id"]: n for n in nodes}
def ancestors(n):
    for _ in range(100000):
        if n["parent"] == n["id"] or n["parent"] not in by_id: return
        n = by_id[n["parent"]]
        yield n
steps = sorted(n["id"] for n in nodes if n["name"].startswith("ProfilerStep#"))
def step_of(i):
    return sum(1 for s in steps if s <= i)
children = set(n["parent"] for n in nodes if n["parent"] != n["id"])
def is_op(n):  # an ATen call, or a compiled graph's kernel (no schema, a leaf on CUDA tensors)
    if n["schema"]:
        return True
    return (n["id"] not in children and not n["name"].startswith(("## ", "[pytorch|"))
            and any(True for _ in tensors(n["ins"] + n["outs"])))
ops, nested_out = [], {}
for n in nodes:
    anc = list(ancestors(n))
    if not is_op(n):
        continue
    if any(is_op(a) for a in anc):  # nested: its outputs are its outermost op's
        top = [a for a in anc if is_op(a)][-1]
        nested_out.setdefault(top["id"], []).extend(tensors(n["outs"]))
        continue
    ph = "forward"
    if any(a["name"].startswith("autograd::engine::evaluate_function:") for a in anc): ph = "backward"
    if any(a["name"].startswith("Optimizer.step") for a in anc): ph = "optimizer"
    ops.append((n, ph, step_of(n["id"])))
# storages as generations: an output on a storage id the op does not read is a new one
gen, size, made, readers, written, pre = {}, {}, {}, {}, {}, set()
def key(t, new=False):
    sid = t[1]
    if new or sid not in gen:
        gen[sid] = gen.get(sid, -1) + 1
    k = (sid, gen[sid]); size[k] = max(size.get(k, 0), (t[2] + t[3]) * t[4]); return k
for n, ph, st in ops:
    ins = [t for t in tensors(n["ins"])]
    in_keys = set()
    for t in ins:
        fresh = t[1] not in gen
        k = key(t)
        if fresh: pre.add(k)
        in_keys.add(k); readers.setdefault(k, set()).add((ph, st))
    bang = "!" in n["schema"]
    for t in list(tensors(n["outs"])) + nested_out.get(n["id"], []):
        if t[1] in gen and (t[1], gen[t[1]]) in in_keys:
            if bang: written.setdefault((t[1], gen[t[1]]), set()).add((ph, st, frozenset(in_keys)))
            continue
        if t[1] in gen and made.get((t[1], gen[t[1]]), (0, 0, None))[2] == n["id"]:
            continue  # made by this op already (a nested call's output is the op's)
        k = key(t, new=True); made[k] = (ph, st, n["id"]); in_keys.add(k)
    if bang:  # foreach writes return nothing: the written lists are inputs
        for k in in_keys:
            written.setdefault(k, set()).add((ph, st, frozenset(in_keys)))
P = sum(size[k] for k in pre)
grads = {k for k, (ph, st, _) in made.items() if ph == "backward" and ("optimizer", st) in readers.get(k, ())}
res = {"P": P}
for st in sorted({st for _, _, st in ops}):
    A = sum(size[k] for k, (ph, s, _) in made.items() if ph == "forward" and s == st and ("backward", st) in readers.get(k, ()))
    G = sum(size[k] for k in grads if made[k][1] == st)
    state = {k for k, (ph, s, _) in made.items() if ph == "optimizer" and s == st and
             any(w[0] == "optimizer" and w[2] & grads for w in written.get(k, ()))}
    O = sum(size[k] for k in state)
    # the step's largest set of temporaries made by one op
    per_op = {}
    for k, (ph, s, i) in made.items():
        if ph == "optimizer" and s == st and k not in state:
            per_op[i] = per_op.get(i, 0) + size[k]
    T = max(per_op.values(), default=0)
    res[st] = dict(A=A, G=G, O=O, T=T, forward=P + A, step=P + G + O + T)
res["peak"] = max(max(v["forward"], v["step"]) for k, v in res.items() if k != "P")
print(json.dumps(res))
