#!/usr/bin/env bash
# A sweep over budgets 0.1:1.0:0.1 computes the reference harness's budgets in bytes (the
# decimal literals, not accumulated steps) and stores what the simulator returned: budget,
# status and eviction counts equal the DTR paper simulator's reference table.
# shellcheck source=tests/cli/analysis/lib.sh
source "$(dirname "$0")/lib.sh"
ref="$GMS_SHARED_DIR/reference/simrd-pareto.csv"
[ -f "$ref" ] || fail "$ref is missing"
pols=dtr,dtr-eq,dtr-local,msps,lru,size
"$GMS_BIN" sweep "$DTR_RESNET" "$DTR_UNET" --policies "$pols" --budgets 0.1:1.0:0.1 --db r.db --quiet
"$GMS_BIN" db export r.db --csv |
  awk -F, -v OFS=, 'NR > 1 {print $1 ".log", $3, $6, $9, $11, $12}' | sort > mine.csv
awk -F, -v OFS=, -v pols=",$pols," 'NR > 1 && $4 == 0 && index(pols, "," $3 ",") &&
  ($1 ~ /^resnet32-/ || $1 ~ /^unet-/) {print $1, $3, $6, $9, $11, $12}' "$ref" | sort > ref.csv
[ "$(wc -l < ref.csv)" -eq 120 ] || fail "expected 120 reference rows, got $(wc -l < ref.csv)"
diff ref.csv mine.csv || fail "budgets/status/evictions differ from the reference table"
echo PASS
