#!/usr/bin/env bash
# Exact replay on the real traces of ../shared (issue 26 goal 3, issue 31 goal 7):
#  1. the GPT-2 Large ET (pytorch-et/hf_gpt2_et.json.gz): every policy that runs on the ideal
#     memory model at every budget GMS_REAL_BUDGETS (default 0.5 .. 0.95 step 0.05), CPU s
#     (user + sys) of one `sim` process each, loading included; with GMS_OLD_BIN set, the
#     policies GMS_REAL_OLD_POLICIES (default dtr,msps,dtr-eq: the old binary takes up to
#     minutes per run) also with the old binary, side by side;
#  2. `fit` over the default policies on it (wall and CPU), old and new;
#  3. per executed op: the simulator's own time of a run (sim --json wall_s, loading aside,
#     best of GMS_REAL_REPEAT, default 3, runs under 10 ms repeated up to
#     GMS_REAL_SHORT_REPEAT, default 21, times) over its executed ops (first runs + rematerializations), for every real
#     trace (the ETs and the DTR logs) and the 1M-op synthetic GPT trace (`synth --model
#     transformer --iterations 1000 --vary-input 128:512`; GMS_REAL_GPT1000 names a made one),
#     at budgets 0.7 and 0.9, and each against the synthetic trace's run of the same policy
#     and budget;
#  4. the 200k-layer chain (`sim --chain 200000 --policy dtr`, no budget), old and new, and
#     at a 30% budget: exact at growing sizes (time quadratic) and --sample 32;
#  5. (needs GMS_OLD_BIN) section 3 side by side: per executed op, old and new runs
#     interleaved, best of GMS_REAL_REPEAT (default 3) each, for the policies GMS_REAL_SCAN_POLICIES (default lru, size,
#     dtr-local, dtr, msps, hybrid, capuchin) at 0.7 and 0.9, each trace against the synth
#     run of the same build; with GMS_SCORED (tests/bench/pool_scored of the new build) also
#     the candidates per executed op (what the plain scan scores: the old build's) and the
#     members the new build's bounded scans scored (sim_pool_bound.h).
# GMS_REAL_SECTIONS picks sections (default "1 2 3 4"). Run directly with GMS_BIN (new) and optionally GMS_OLD_BIN (a Release build of the main to
# compare with). Numbers go to docs/benchmarks.md, "Real traces and long chains".
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${GMS_BIN:-${GMS_BUILD:-$PWD/build-bench}/cli/gpumemsim}"
old="${GMS_OLD_BIN:-}"
shared="${GMS_SHARED_DIR:-$PWD/../shared}"
budgets="${GMS_REAL_BUDGETS:-0.5 0.55 0.6 0.65 0.7 0.75 0.8 0.85 0.9 0.95}"
old_pols="${GMS_REAL_OLD_POLICIES:-dtr,msps,dtr-eq}"
sections=" ${GMS_REAL_SECTIONS:-1 2 3 4} "
on() { [[ "$sections" == *" $1 "* ]]; }
[ -x "$bin" ] || { echo "real.sh: $bin is missing (set GMS_BIN)" >&2; exit 1; }
[ -d "$shared/traces/pytorch-et" ] || { echo "real.sh: no $shared/traces (set GMS_SHARED_DIR)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# cpu BIN ARGS...: "CPU_S" of one `BIN sim ARGS` (user + sys), ">" past GMS_REAL_TIME
cpu() {
  local b=$1; shift
  if /usr/bin/time -o "$tmp/t" -f '%U %S' timeout -s KILL "${GMS_REAL_TIME:-300}" \
       "$b" sim "$@" >/dev/null 2>&1; then
    awk '{printf "%.2f", $1 + $2}' "$tmp/t"
  else
    printf '>'
  fi
}

# The policies fit runs by default on the ideal model: the registry's, less those that need
# addresses (--list-policies marks them "needs --allocator"); planners and the solved
# schedules (checkmate) are not in it.
mapfile -t pols < <("$bin" sim --list-policies |
  awk '!/needs --allocator/ && !/ planner: / && !/ solved: / {print $1}')

echo "-- converting the ETs (new binary)"
for f in "$shared"/traces/pytorch-et/*_et.json.gz; do
  n=$(basename "$f" .json.gz)
  "$bin" convert "$f" -o "$tmp/$n.gmt" >/dev/null 2>&1 || echo "  $n: not converted"
done
gpt2="$tmp/hf_gpt2_et.gmt"

if on 1; then
echo
echo "-- 1. GPT-2 Large ET, CPU s per run (user + sys, loading included); old / new where both"
printf '| policy |'; for b in $budgets; do printf ' %s |' "$b"; done; echo
printf '|---|'; for b in $budgets; do printf -- '---:|'; done; echo
for p in "${pols[@]}"; do
  printf '| %s |' "$p"
  for b in $budgets; do
    n=$(cpu "$bin" "$gpt2" --policy "$p" --budget "$b")
    if [ -n "$old" ] && [[ ",$old_pols," == *",$p,"* ]]; then
      printf ' %s / %s |' "$(cpu "$old" "$gpt2" --policy "$p" --budget "$b")" "$n"
    else
      printf ' %s |' "$n"
    fi
  done
  echo
done
fi

if on 2; then
  echo
  echo "-- 2. fit over the default policies on the GPT-2 ET (wall s, CPU s)"
  for b in ${old:+"$old"} "$bin"; do
    /usr/bin/time -o "$tmp/t" -f '%e %U %S' "$b" fit "$gpt2" >"$tmp/fit.out" 2>/dev/null || true
    printf '%s: %s\n' "$b" "$(awk '{printf "%.1f s wall, %.1f s CPU", $1, $2 + $3}' "$tmp/t")"
  done
fi

if on 3; then
echo
echo "-- 3. per executed op: the run's own time (best of ${GMS_REAL_REPEAT:-3}) / ops executed, and x the 1M-op GPT synth"
gpt1000="${GMS_REAL_GPT1000:-$tmp/gpt1000.gmt}"
[ -f "$gpt1000" ] || "$bin" synth --model transformer --iterations 1000 --vary-input 128:512 \
  -o "$gpt1000" >/dev/null 2>&1
# per_op TRACE POLICY BUDGET: "NS_PER_OP OPS". Best of GMS_REAL_REPEAT runs, and short runs
# repeat on until their runs add up to 10 ms or GMS_REAL_SHORT_REPEAT runs (default 21): a DTR
# log's run takes 60-100 us, and its best of 5 still moved by 30% between two sessions (the
# machine's noise, not the engine: best of 5 gave resnet32 lru 0.9 3.4x the synth, best of 21
# 2.5x, same binary, same hour).
per_op() {
  local best="" ops=0 i sum=0
  for ((i = 0; i < ${GMS_REAL_SHORT_REPEAT:-21}; i++)); do
    if ((i >= ${GMS_REAL_REPEAT:-3})) && awk -v s="$sum" 'BEGIN{exit !(s >= 0.01)}'; then
      break
    fi
    local j
    j=$("$bin" sim "$1" --policy "$2" --budget "$3" --json 2>/dev/null) || { echo "- 0"; return; }
    local w e
    w=$(echo "$j" | sed -n 's/.*"wall_s": \([0-9.e-]*\).*/\1/p')
    e=$(echo "$j" | sed -n 's/.*"ops_executed": \([0-9]*\).*/\1/p')
    ops=$e
    sum=$(awk -v s="$sum" -v w="$w" 'BEGIN{print s + w}')
    if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN{exit !(a < b)}'; then best=$w; fi
  done
  awk -v w="$best" -v n="$ops" 'BEGIN{ if (n > 0) printf "%.0f %d\n", w * 1e9 / n, n; else print "- 0" }'
}
traces=("$gpt1000" "$tmp"/*_et.gmt "$shared"/traces/dtr-iclr21/*.log)
for b in 0.7 0.9; do
  echo "budget $b: ns per executed op (x GPT synth)"
  printf '| trace |'; for p in "${pols[@]}"; do printf ' %s |' "$p"; done; echo
  printf '|---|'; for p in "${pols[@]}"; do printf -- '---:|'; done; echo
  declare -A ref=()
  for t in "${traces[@]}"; do
    printf '| %s |' "$(basename "$t" | cut -d- -f1)"
    for p in "${pols[@]}"; do
      read -r ns n < <(per_op "$t" "$p" "$b")
      if [ "$t" = "$gpt1000" ]; then ref[$p]=$ns; printf ' %s |' "$ns"; continue; fi
      if [ "$ns" = - ] || [ "${ref[$p]:--}" = - ]; then printf ' %s |' "$ns"; continue; fi
      printf ' %s (%s) |' "$ns" "$(awk -v a="$ns" -v r="${ref[$p]}" 'BEGIN{printf "%.1fx", (r > 0 ? a / r : 0)}')"
    done
    echo
  done
  unset ref
done
fi

if on 4; then
echo
echo "-- 4. the 200k-layer chain, dtr (CPU s, user + sys)"
for b in ${old:+"$old"} "$bin"; do
  printf '%s, no budget: %s s\n' "$b" "$(cpu "$b" --chain 200000 --policy dtr)"
done
echo "at a 30% budget, exact (new):"
for n in 10000 20000 40000; do
  printf '  %s layers: %s s\n' "$n" "$(cpu "$bin" --chain "$n" --policy dtr --budget 0.3)"
done
printf '  200000 layers, --sample 32: %s s\n' "$(cpu "$bin" --chain 200000 --policy dtr --budget 0.3 --sample 32)"
fi

if on 5; then
[ -n "$old" ] || { echo "real.sh: section 5 needs GMS_OLD_BIN" >&2; exit 1; }
echo
echo "-- 5. per executed op, old / new interleaved (best of 3 each; ns per op, x the synth of the same build)"
gpt1000="${GMS_REAL_GPT1000:-$tmp/gpt1000.gmt}"
[ -f "$gpt1000" ] || "$bin" synth --model transformer --iterations 1000 --vary-input 128:512 \
  -o "$gpt1000" >/dev/null 2>&1
# one BIN TRACE POLICY BUDGET: "WALL_S OPS" of one run (sim --json), "- 0" when it fails
one() {
  local j
  j=$("$1" sim "$2" --policy "$3" --budget "$4" --json 2>/dev/null) || { echo "- 0"; return; }
  printf '%s %s\n' "$(sed -n 's/.*"wall_s": \([0-9.e-]*\).*/\1/p' <<<"$j")" \
    "$(sed -n 's/.*"ops_executed": \([0-9]*\).*/\1/p' <<<"$j")"
}
# min A B: the smaller of two wall times ("-" when none)
min() { awk -v a="$1" -v b="$2" 'BEGIN{ if (a == "-") print b; else if (b == "-" || a < b) print a; else print b }'; }
traces=("$gpt1000" "$tmp"/*_et.gmt "$shared"/traces/dtr-iclr21/*.log)
read -r -a spols <<<"${GMS_REAL_SCAN_POLICIES:-lru size dtr-local dtr msps hybrid capuchin}"
for b in 0.7 0.9; do
  echo "budget $b"
  echo '| trace | policy | old ns/op | new ns/op | old / new | old x synth | new x synth | candidates / op | scored / op (new) |'
  echo '|---|---|---:|---:|---:|---:|---:|---:|---:|'
  declare -A rold=() rnew=()
  for t in "${traces[@]}"; do
    for p in "${spols[@]}"; do
      wo=- wn=- n=0
      for ((i = 0; i < ${GMS_REAL_REPEAT:-3}; i++)); do
        read -r w n < <(one "$old" "$t" "$p" "$b"); wo=$(min "$wo" "$w")
        read -r w n < <(one "$bin" "$t" "$p" "$b"); wn=$(min "$wn" "$w")
        awk -v a="$wo" 'BEGIN{exit !(a != "-" && a > 20)}' && break # a long run: once is enough
      done
      [ "$n" -gt 0 ] 2>/dev/null || { printf '| %s | %s | - | - | | | | | |\n' "$(basename "$t" | cut -d- -f1)" "$p"; continue; }
      no=$(awk -v w="$wo" -v n="$n" 'BEGIN{printf "%.0f", w * 1e9 / n}')
      nn=$(awk -v w="$wn" -v n="$n" 'BEGIN{printf "%.0f", w * 1e9 / n}')
      if [ "$t" = "$gpt1000" ]; then rold[$p]=$no; rnew[$p]=$nn; fi
      sc="" cand=""
      if [ -n "${GMS_SCORED:-}" ]; then
        read -r e c k < <("$GMS_SCORED" "$t" "$p" "$b" 2>/dev/null || echo "0 0 -")
        if [ "$e" -gt 0 ]; then
          cand=$(awk -v c="$c" -v e="$e" 'BEGIN{printf "%.1f", c / e}')
          [ "$k" = - ] || sc=$(awk -v c="$k" -v e="$e" 'BEGIN{printf "%.1f", c / e}')
        fi
      fi
      printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$(basename "$t" | cut -d- -f1)" "$p" \
        "$no" "$nn" "$(awk -v a="$no" -v b="$nn" 'BEGIN{printf "%.1fx", (b > 0 ? a / b : 0)}')" \
        "$(awk -v a="$no" -v r="${rold[$p]:-0}" 'BEGIN{printf "%.1fx", (r > 0 ? a / r : 0)}')" \
        "$(awk -v a="$nn" -v r="${rnew[$p]:-0}" 'BEGIN{printf "%.1fx", (r > 0 ? a / r : 0)}')" \
        "$cand" "$sc"
    done
  done
  unset rold rnew
done
fi
