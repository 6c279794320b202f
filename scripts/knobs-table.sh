#!/usr/bin/env bash
# The comparison table of docs/planners.md ("The knobs PyTorch users turn, against DTR"),
# regenerated: for each trace and each knob b, ac-budget (dp and greedy) with no memory limit,
# the peak it reaches (a ratio of the trace's peak), then every other policy with that peak as
# its budget, and Checkmate's program on the trace's layer graph at that budget (`gpumemsim
# optimal --coarsen layers --time-limit T`): its overhead when CBC proves it optimal, "<= x"
# when the time limit ends the search (the best schedule found), its LP bound ">= x" when no
# schedule is found, "infeasible" when no layer-level schedule fits. The last column: how much
# more ac-budget dp costs than the best of dtr and the optimum (overhead points; "-" when the
# knob is the cheapest or nothing else fits).
#
# usage: scripts/knobs-table.sh [--write DOC]     (GMS_BIN, GMS_SHARED_DIR, GMS_KNOBS_TRACES,
#        GMS_KNOBS_KNOBS default "0.3 0.5 0.7 0.9", GMS_KNOBS_OPT_LIMIT default 20 s)
# With --write DOC the table replaces the lines between "<!-- knobs-table -->" and
# "<!-- /knobs-table -->" in DOC (written to DOC.tmp, then renamed: never a partial file).
set -euo pipefail
: "${GMS_BIN:?set GMS_BIN to the gpumemsim binary}"
doc=
if [ "${1:-}" = --write ]; then
  doc=${2:?--write needs a file}
  grep -q '^<!-- knobs-table -->$' "$doc" || { echo "knobs-table: no <!-- knobs-table --> marker in $doc" >&2; exit 1; }
fi
shared=${GMS_SHARED_DIR:-../shared}
limit=${GMS_KNOBS_OPT_LIMIT:-20}
knobs=${GMS_KNOBS_KNOBS:-0.3 0.5 0.7 0.9}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${GMS_KNOBS_TRACES:-}" ]; then
  read -r -a traces <<<"$GMS_KNOBS_TRACES"
else
  "$GMS_BIN" synth --model transformer --layers 6 -o "$tmp/synth-transformer.gmt" -q
  traces=("$tmp/synth-transformer.gmt" "$shared/traces/pytorch-et/hf_gpt2_et.json.gz"
          "$shared/traces/pytorch-et/resnet50_ddp_et.json.gz" "$shared"/traces/dtr-iclr21/*.log)
fi

name() { # a short trace name for the table
  case "$(basename "$1")" in
    synth-transformer.gmt) echo "synth transformer (6 blocks, GPT-2 width)" ;;
    hf_gpt2_et.json.gz) echo "GPT-2 Large ET" ;;
    resnet50_ddp_et.json.gz) echo "ResNet-50 ET" ;;
    *.log) echo "DTR log $(basename "$1" | cut -d- -f1)" ;;
    *) basename "$1" ;;
  esac
}
ovh() { jq -r 'if .status == "ok" then "\(.overhead * 1000 | round / 1000)" else .status end'; }
ratio() { jq -r '.peak_memory / .baseline_memory * 1000 | ceil / 1000'; }
opt() { # the optimum's cell at budget $2 on trace $1
  local j
  j=$("$GMS_BIN" optimal "$1" --budget "$2" --coarsen layers --time-limit "$limit" --json \
      2>/dev/null) || true
  echo "$j" | jq -r 'def r: . * 1000 | round / 1000;
    if .status == "optimal" then "\(.overhead | r)"
    elif .status == "feasible" then "<= \(.overhead | r)"
    elif .status == "infeasible" then "infeasible"
    elif (.lower_bound // null) != null and (.compute // 0) > 0 then ">= \(.lower_bound / .compute | r)"
    else (.status // "error") end' 2>/dev/null || echo error
}
{
  echo "| trace | knob | ac-budget dp (peak) | greedy (peak) | sac | rotor | ckpt-sqrt | mimose | dtr | optimum (layers) | dp above the best |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for t in "${traces[@]}"; do
    [ -f "$t" ] || { echo "knobs-table: missing $t" >&2; exit 1; }
    for b in $knobs; do
      dp=$("$GMS_BIN" sim "$t" --policy ac-budget --policy-args budget="$b" --json 2>/dev/null)
      gr=$("$GMS_BIN" sim "$t" --policy ac-budget --policy-args budget="$b",solver=greedy --json 2>/dev/null)
      r=$(echo "$dp" | ratio)
      d=$(echo "$dp" | ovh)
      line="| $(name "$t") | $b | $d ($r) | $(echo "$gr" | ovh) ($(echo "$gr" | ratio))"
      cells=()
      for p in sac rotor ckpt-sqrt mimose dtr; do
        c=$("$GMS_BIN" sim "$t" --policy "$p" --budget "$r" --json 2>/dev/null | ovh || echo error)
        cells+=("$c")
        line="$line | $c"
      done
      o=$(opt "$t" "$r")
      # the best of dtr and the optimum (a proven or found schedule, not the LP bound)
      best=$(printf '%s\n%s\n' "${cells[4]}" "${o#<= }" | grep -E '^[0-9.]+$' | sort -g | head -1 || true)
      gap=-
      if [ -n "$best" ] && [[ $d =~ ^[0-9.]+$ ]]; then
        gap=$(awk -v d="$d" -v b="$best" 'BEGIN { g = d - b; if (g > 0) printf "+%.3f (%.1f%%)", g, 100 * g / b; else print "-" }')
      fi
      echo "$line | $o | $gap |"
    done
  done
} >"$tmp/table"
if [ -n "$doc" ]; then
  awk -v f="$tmp/table" '
    /^<!-- knobs-table -->$/ { print; while ((getline l < f) > 0) print l; skip = 1; next }
    /^<!-- \/knobs-table -->$/ { skip = 0 }
    !skip' "$doc" >"$doc.tmp"
  mv "$doc.tmp" "$doc"
  echo "knobs-table: $doc updated"
else
  cat "$tmp/table"
fi
