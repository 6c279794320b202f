#!/usr/bin/env bash
# Op-level answers of `gpumemsim optimal` under a time limit (issue 28, items 3 and 4): for each
# trace (the ResNet-50 ET and the DTR logs of ../shared) and budget 0.5 .. 0.9 of the trace's
# baseline, `optimal --coarsen outputs --time-limit L --json`: the answer's overhead and where
# it came from, each heuristic run's overhead as a schedule of the graph, the bound (the LP's,
# or the boundary bound when the program is over the memory cap or the LP did not finish:
# then `--bound boundary` is asked separately), the gap to it, wall seconds and peak RSS.
# GMS_BIN as scripts/bench.sh sets it; GMS_OPT_LIMIT (seconds, default 600, the goal's 10
# minutes) and GMS_OPT_TRACES (names: et, unet, resnet32, densenet121, ...; default et unet
# resnet32) and GMS_OPT_BUDGETS narrow it. A run is up to the limit plus a grace: 15 runs of
# 10 minutes are two and a half hours.
set -euo pipefail
: "${GMS_BIN:?}"
shared="${GMS_SHARED_DIR:-$(dirname "$0")/../../../shared}"
limit="${GMS_OPT_LIMIT:-600}"
traces=(${GMS_OPT_TRACES:-et unet resnet32})
budgets=(${GMS_OPT_BUDGETS:-0.5 0.6 0.7 0.8 0.9})
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
path_of() {
  case "$1" in
  et) echo "$shared/traces/pytorch-et/resnet50_ddp_et.json.gz" ;;
  *) ls "$shared"/traces/dtr-iclr21/*"$1"-*.log | head -1 ;;
  esac
}
echo "-- optimal --coarsen outputs --time-limit $limit (one core; the machine's load: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "| trace (nodes) | budget | answer (from) | best run | bound (which) | gap | lp s | wall s | peak RSS MB |"
echo "|---|---:|---|---|---|---:|---:|---:|---:|"
for name in "${traces[@]}"; do
  t=$(path_of "$name")
  for b in "${budgets[@]}"; do
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$GMS_BIN" optimal "$t" --coarsen outputs \
      --budget "$b" --time-limit "$limit" --json >"$tmp/a.json" 2>/dev/null || true
    read -r wall rss <"$tmp/time"
    if ! jq -e '.lower_bound != null' "$tmp/a.json" >/dev/null 2>&1; then
      "$GMS_BIN" optimal "$t" --coarsen outputs --budget "$b" --bound boundary --json \
        >"$tmp/b.json" 2>/dev/null || echo '{}' >"$tmp/b.json"
    else
      echo '{}' >"$tmp/b.json"
    fi
    jq -r --arg n "$name" --arg b "$b" --arg w "$wall" --arg r "$rss" --slurpfile bb "$tmp/b.json" '
      def f4: if . == null then "-" else (. * 10000 | round / 10000 | tostring) end;
      (if .lower_bound != null then [.lower_bound, .lower_bound_from]
       else [$bb[0].lower_bound, (if $bb[0].lower_bound then "boundary, asked" else null end)] end) as $lb
      | ([.heuristics[] | select(.fits_program) | {p: .policy, o: .schedule_overhead}]
         | min_by(.o)) as $best
      | "| \($n) (\(.nodes)) | \($b) | \(.overhead | f4) (\(if .seeded and .objective < .seed_objective * (1 - 1e-9) then (if .rounded then "search LP rounded" else "search" end) else .seed_from end)\(if .improvement then ", \(.improvement.windows_improved) of \(.improvement.windows) windows, \(.improvement.seconds | round) s" else "" end)) | " +
        "\(if $best then "\($best.p) \($best.o | f4)" else "-" end) | " +
        "\(if $lb[0] then ($lb[0] / .compute | f4) + " (\($lb[1]))" else "-" end) | " +
        "\(if $lb[0] and .objective then ((.objective - $lb[0]) / .objective * 1000 | round / 10 | tostring) + "%" else "-" end) | " +
        "\(.lp_seconds * 10 | round / 10) | \($w) | \(($r | tonumber) / 1024 | round) |"' "$tmp/a.json" \
      || echo "| $name | $b | (no answer) | | | | | $wall | |"
  done
done
