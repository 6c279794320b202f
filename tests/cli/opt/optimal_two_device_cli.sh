#!/usr/bin/env bash
# End-to-end: 'optimal' with two devices (XEngine's extension, docs/optimal.md "Two devices"):
# a node cheaper on the host runs there when the copies cost less; too little host memory
# makes the GPU recompute instead; without any cost_host the answer is the single-device one
# (a hand graph and a trace); --relax and --write-model; bad links, host memories, cost_host
# values and option mixes give a clear error and a non-zero exit.
# shellcheck source=tests/cli/opt/lib.sh
. "$(dirname "$0")/lib.sh"

# a -> b -> c, b 10 ms on the GPU and 2 on the host; 1 MB outputs copy in 1 ms at 1 GB/s:
# 1 + 1 + 2 + 1 + 1 = 6 ms with b on the host
cat > host.json <<'G'
{"nodes": [
 {"name": "a", "cost": 1, "bytes": 1000000},
 {"name": "b", "cost": 10, "cost_host": 2, "bytes": 1000000, "inputs": [0]},
 {"name": "c", "cost": 1, "bytes": 1000000, "inputs": [1]}]}
G
out=$("$GMS_BIN" optimal host.json --budget 1.0 --link 1 --json) || fail "host: $out"
[ "$(echo "$out" | field 'd["status"], d["program"], d["total_time"], d["objective"], d["schedule"][1]["host"], d["schedule"][1]["gpu"]')" \
  = "optimal two-device 6.0 6.0 [1] []" ] || fail "host placement: $out"
[ "$(echo "$out" | field 'd["transfers"]["count"], d["transfers"]["to_host"], d["transfers"]["bytes_to_gpu"], d["transfers"]["ms"], d["transfers"]["overlap"], d["compute_host"]')" \
  = "2 1 1000000 2.0 False 2.0" ] || fail "host transfers: $out"
echo "$out" | field 'd["lower_bound"] <= d["objective"] + 1e-9 and d["gap"] == 0 and d["link_gbps"] == 1 and d["host_memory"] is None' \
  | grep -q True || fail "host bound/link: $out"
text=$("$GMS_BIN" optimal host.json --budget 1.0 --link 1) || fail "host text"
echo "$text" | grep -q "total time: *6 ms = GPU compute 2 + host compute 2 + copies 2 (serial)" \
  && echo "$text" | grep -q "copies: *1 to the host" && echo "$text" | grep -q "stage 1 (b): gpu; host 1" \
  || fail "host text: $text"
# over the default link (pcie4, 10 us a copy) the copies are cheap too
"$GMS_BIN" optimal host.json --budget 1.0 --json | field 'd["schedule"][1]["host"] == [1] and d["total_time"] < 4.1' \
  | grep -q True || fail "host over pcie4"
# a slow link: the copies (2 x 100 ms at 0.01 GB/s) cost more than the host saves: all on the GPU
out=$("$GMS_BIN" optimal host.json --budget 1.0 --link 0.01 --json) || fail "slow link"
[ "$(echo "$out" | field 'd["total_time"], d["transfers"]["count"], d["host_runs"]')" = "12.0 0 0" ] \
  || fail "slow link: $out"

# the root a costs 5 on either device; 30 bytes of GPU (5 constant) cannot hold a, b and c:
# with 10 bytes of host a lives there (14 ms + 2 copies of 10 ns), with 5 the GPU recomputes it
cat > root.json <<'G'
{"constant_bytes": 5, "nodes": [
 {"name": "a", "cost": 5, "cost_host": 5, "bytes": 10},
 {"name": "b", "cost": 2, "bytes": 10, "inputs": [0]},
 {"name": "c", "cost": 3, "bytes": 10, "inputs": [1]},
 {"name": "d", "cost": 4, "bytes": 0, "inputs": [2, 0]}]}
G
out=$("$GMS_BIN" optimal root.json --budget 30B --host-memory 10B --link 1 --json) || fail "root 10B: $out"
[ "$(echo "$out" | field 'd["status"], round(d["total_time"], 9), d["schedule"][0]["host"], d["peak_host"], d["peak"] <= 30, d["recomputations"]')" \
  = "optimal 14.00002 [0] 10 True 0" ] || fail "root with host memory: $out"
out=$("$GMS_BIN" optimal root.json --budget 30B --host-memory 5B --link 1 --json) || fail "root 5B: $out"
[ "$(echo "$out" | field 'd["status"], d["total_time"], d["peak_host"], d["recomputations"], d["schedule"][3]["gpu"]')" \
  = "optimal 19.0 0 1 [0, 3]" ] || fail "root, host too small: $out"

# no cost_host: asking for two devices gives the single-device optimum
write_diamond diamond.json
one=$("$GMS_BIN" optimal diamond.json --budget 30B --json) || fail "diamond one"
two=$("$GMS_BIN" optimal diamond.json --budget 30B --host-memory 1GiB --json) || fail "diamond two"
[ "$(echo "$two" | field 'd["program"], d["objective"], d["host_runs"], d["transfers"]["count"]')" \
  = "two-device $(echo "$one" | field 'd["objective"]') 0 0" ] || fail "diamond: $one / $two"
T="$GMS_SOURCE_DIR/traces/samples/unet-small.gmt"
# 1.28 and 1.43 of the trace's peak: 0.85 and 0.95 of the layer graph's (1.5 x the trace's)
for b in 1.28 1.43; do
  one=$("$GMS_BIN" optimal "$T" --coarsen layers --budget $b --json) || fail "trace one $b"
  two=$("$GMS_BIN" optimal "$T" --coarsen layers --budget $b --link pcie5 --json) || fail "trace two $b"
  python3 -c "
import json,sys; a=json.loads(sys.argv[1]); b=json.loads(sys.argv[2])
assert a['status'] == b['status'] == 'optimal', (a['status'], b['status'])
assert abs(a['objective'] - b['objective']) <= 1e-6 * a['objective'], (a['objective'], b['objective'])
assert b['program'] == 'two-device' and b['host_runs'] == 0" "$one" "$two" || fail "trace at $b differs"
done

# --relax and --write-model
lp=$("$GMS_BIN" optimal host.json --budget 1.0 --link 1 --relax --json) || fail "relax"
echo "$lp" | field 'd["mode"] == "relax" and d["objective"] <= 6 + 1e-9 and "schedule" not in d' | grep -q True \
  || fail "relax: $lp"
"$GMS_BIN" optimal host.json --budget 1.0 --link 1 --write-model m.lp >/dev/null || fail "write-model"
grep -q "R_host_1_1" m.lp && grep -q "^Binaries" m.lp && grep -q "X_gpu_" m.lp || fail "model: $(head m.lp)"

# bad input: clear errors, non-zero exits, no crash
"$GMS_BIN" optimal host.json --budget 1.0 --link warp9 2>err; [ $? -eq 2 ] || fail "unknown link accepted"
grep -q "pcie4" err || fail "link error lists no presets: $(cat err)"
"$GMS_BIN" optimal host.json --budget 1.0 --host-memory -5 2>err; [ $? -eq 2 ] || fail "negative host memory accepted"
grep -q "host-memory '-5'" err || fail "host memory error: $(cat err)"
"$GMS_BIN" optimal host.json --budget 1.0 --host-memory 0 2>err; [ $? -eq 2 ] || fail "zero host memory accepted"
sed 's/"cost_host": 2/"cost_host": -2/' host.json > neg.json
"$GMS_BIN" optimal neg.json --budget 1.0 2>err; [ $? -eq 1 ] || fail "negative cost_host accepted"
grep -q 'node 1 ("b").*negative cost_host' err || fail "cost_host error: $(cat err)"
sed 's/"cost_host": 2/"cost_host": "quick"/' host.json > str.json
"$GMS_BIN" optimal str.json --budget 1.0 2>err; [ $? -eq 1 ] || fail "string cost_host accepted"
grep -q 'node 1 ("b").*not a number' err || fail "cost_host type error: $(cat err)"
"$GMS_BIN" optimal host.json --budget 1.0 --approx 2>err; [ $? -eq 2 ] || fail "--approx with two devices"
grep -q "single-device" err || fail "--approx error: $(cat err)"
for opt in "--formulation moccasin" "--bound boundary"; do
  # shellcheck disable=SC2086
  "$GMS_BIN" optimal host.json --budget 1.0 $opt 2>err; [ $? -eq 2 ] || fail "$opt with two devices"
  grep -q "single-device" err || fail "$opt error: $(cat err)"
done
# infeasible: below the constants, and where neither device can hold a node with its inputs
"$GMS_BIN" optimal root.json --budget 4B --host-memory 1GiB --json > inf.json 2>err; [ $? -eq 1 ] || fail "4B feasible"
field 'd["status"]' < inf.json | grep -q infeasible && grep -q "constant bytes" err || fail "4B: $(cat err)"
"$GMS_BIN" optimal root.json --budget 20B --host-memory 5B 2>err >/dev/null; [ $? -eq 1 ] || fail "20B feasible"
grep -q "infeasible: no two-device schedule fits" err || fail "20B: $(cat err)"
exit 0
