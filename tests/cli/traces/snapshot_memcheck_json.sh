#!/usr/bin/env bash
# memcheck --json on PyTorch memory snapshots (cli/memcheck_snapshot_json.c): one JSON object
# with the text report's figures. On the hand-made snapshots (snapshots/make.py): the exact
# check everywhere (3 of 3 placed, no divergence) with the same numbers as the text report;
# the first divergence's event and user frames; an exact check refused for what cannot be
# modelled, with the reasons listed; the what-if table with --device-memory naming each OOM's
# event; a recorded OOM with the device's free bytes. Bad input: one clear line, exit 1,
# nothing on stdout.
set -u
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1
python3 "$GMS_SOURCE_DIR/tests/cli/traces/snapshots/make.py" . || fail "make.py"

"$GMS_BIN" memcheck exact.pickle --json > exact.json 2> e.txt || fail "exact: $(cat e.txt)"
"$GMS_BIN" memcheck exact.pickle > exact.txt || fail "exact text"
"$GMS_BIN" memcheck diverge.pickle --json > diverge.json || fail "diverge"
"$GMS_BIN" memcheck unmodelled.pickle --json > unmodelled.json 2> /dev/null || fail "unmodelled"
"$GMS_BIN" memcheck exact.pickle --json --alloc-conf expandable_segments:True \
  --alloc-conf max_split_size_mb:20 --device-memory 21MiB > whatif.json || fail "what-if"
"$GMS_BIN" memcheck oom.pickle --json > oom.json 2> /dev/null || fail "oom"
python3 - <<'PY' || fail "memcheck --json fields"
import json, re
x = json.load(open("exact.json"))
assert x["events"] == 6 and x["device"] == 0, x
assert x["before_first_event"] == {"segments": 1, "live_blocks": 1, "reserved": 20 << 20}, x
e = x["exact"]
assert e["run"] and e["allocations"] == e["placed_same"] == 3 and e["placed_same_share"] == 1
assert e["first_divergence"] is None and e["end"]["segments_real"] == e["end"]["segments_model"]
assert e["reserved_equal"] == e["checks"] == 4, e
text = open("exact.txt").read()
assert f'{e["placed_same"]} of {e["allocations"]} allocations' in text
m = re.search(r"reserved real (\d+), model (\d+)", text)
assert (int(m[1]), int(m[2])) == (e["end"]["reserved_real"], e["end"]["reserved_model"])
c = x["cold_start"]
assert c["peak_rel_error"] == 0 and c["oom"] is None and c["peak_reserved_real"] == 22 << 20, c
assert x["recorded_ooms"] == [] and x["unmodelled"] == []

d = json.load(open("diverge.json"))["exact"]
fd = d["first_divergence"]
assert d["placed_same"] == 2 and fd["index"] == 5 and fd["action"] == "alloc", d
assert fd["frames"][0]["filename"] == "/home/u/model.py" and fd["frames"][0]["line"] == 42, fd
assert fd["what"], fd

u = json.load(open("unmodelled.json"))
assert u["exact"]["run"] is False and "leaves out" in u["exact"]["why"], u["exact"]
assert len(u["unmodelled"]) >= 2, u["unmodelled"]

w = json.load(open("whatif.json"))
rows = w["whatif"]
assert [r["setting"] for r in rows] == ["caching (as recorded)", "expandable_segments:True",
                                        "max_split_size_mb:20"], rows
assert w["real_peak_reserved"] == 22 << 20
for r in rows:  # 21 MiB cannot hold the 2 MiB small segment beside the 20 MiB one
    assert r["oom"] and r["oom"]["device_memory"] == 21 << 20 and r["peak_rel_error"] is None, r
    assert r["oom"]["action"] == "alloc" and r["oom"]["index"] == 4, r

o = json.load(open("oom.json"))
assert len(o["recorded_ooms"]) == 1, o["recorded_ooms"]
r = o["recorded_ooms"][0]
assert r["index"] == 6 and r["device_free"] == 12 << 20 and r["size"] == 30 << 20, r
assert r["frames"][0]["filename"] == "/home/u/model.py", r
PY
for f in truncated code nokeys alist; do
  "$GMS_BIN" memcheck "$f.pickle" --json > o.out 2> o.err && fail "$f accepted"
  [ -s o.out ] && fail "$f: output on stdout: $(cat o.out)"
  [ "$(wc -l < o.err)" -eq 1 ] || fail "$f: not one line: $(cat o.err)"
done
echo ok
