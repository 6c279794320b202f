#!/usr/bin/env bash
# The same trace swept at two remat limits: plot overhead does not average the two into one
# line but says which runs differ and how to pick; db runs shows the LIMIT and SEMANTICS
# columns and filters by them (--remat-limit, --semantics, --where); an unknown trace,
# policy or value in db or plot is an error naming what the store holds.
# shellcheck source=tests/cli/analysis/charts_lib.sh
source "$(dirname "$0")/charts_lib.sh"
for limit in 2 3; do
  "$GMS_BIN" sweep "$SAMPLES/resnet-small.gmt" --policies dtr,random --seeds 2 \
    --budgets 0.5,0.7,0.9 --remat-limit $limit --db r.db --quiet
done
"$GMS_BIN" db runs r.db > all.txt
grep -q '^18 runs: ' all.txt || fail "expected 18 runs: $(tail -1 all.txt)"
head -1 all.txt | grep -q ' LIMIT  SEMANTICS ' || fail "db runs lacks LIMIT/SEMANTICS: $(head -1 all.txt)"
grep -Eq '^resnet-small +dtr +3 +simrd ' all.txt || fail "db runs does not show the limit: $(sed -n 2p all.txt)"

expect_fail "differ in more than the seed \(remat limit 2, .*remat limit 3.*pick one with --remat-limit" \
  "$GMS_BIN" plot overhead r.db -o mixed.png
[ ! -e mixed.png ] || fail "a chart averaging two remat limits was written"

# each limit alone: 9 runs, and the chart's dtr points are that limit's overheads
for limit in 2 3; do
  "$GMS_BIN" db runs r.db --remat-limit $limit | grep -q '^9 runs: ' || fail "--remat-limit $limit"
  "$GMS_BIN" db runs r.db --where remat-limit=$limit | grep -q '^9 runs: ' || fail "--where remat-limit"
  "$GMS_BIN" plot overhead r.db --remat-limit $limit -o l$limit.png --script l$limit.gp
  datablock l$limit.gp '$trace1' | awk '/^# / { p = $2 " " $3; next } p == "dtr " && NF == 2 && $1 != "NaN" { printf "%s %.6f\n", $1 + 0, $2 }' > drawn$limit.txt
  "$GMS_BIN" db export r.db --csv --policy dtr --remat-limit $limit |
    awk -F, 'NR > 1 && $9 == "ok" { printf "%s %.6f\n", $5 + 0, $10 }' > expected$limit.txt
  diff <(sort expected$limit.txt) <(sort drawn$limit.txt) || fail "limit $limit: drawn dtr points differ"
done
"$GMS_BIN" db runs r.db --semantics simrd | grep -q '^18 runs: ' || fail "--semantics simrd"
"$GMS_BIN" db runs r.db --where params='seed=*' | grep -q '^12 runs: ' || fail "--where params glob"
ok=$("$GMS_BIN" db export r.db --csv | awk -F, 'NR > 1 && $9 == "ok"' | wc -l)
"$GMS_BIN" db runs r.db --where status=ok | grep -q "^$ok runs: $ok ok" || fail "--where status=ok"

# names the store does not hold are errors that list what it holds
expect_fail "no runs of policy 'nosuch' in r.db; it holds: dtr, random" "$GMS_BIN" db runs r.db --policy dtr,nosuch
expect_fail "no trace 'nosuch' in r.db; it holds: resnet-small" "$GMS_BIN" db export r.db --csv --trace nosuch
expect_fail "no runs of policy 'nosuch' in r.db; it holds: dtr, random" "$GMS_BIN" plot overhead r.db --policies nosuch -o x.png
expect_fail "no trace 'nosuch' in r.db; it holds: resnet-small" "$GMS_BIN" plot overhead r.db --trace nosuch -o x.png
expect_fail "no runs at remat limit '5' in r.db; it holds: 2.0, 3.0" "$GMS_BIN" db runs r.db --remat-limit 5
expect_fail "no runs with semantics 'exact'" "$GMS_BIN" db runs r.db --semantics exact
expect_fail "unknown key 'colour'" "$GMS_BIN" db runs r.db --where colour=red
expect_fail "a status is ok, oom or remat-limit" "$GMS_BIN" db runs r.db --where status=fine
expect_fail "merge takes whole stores" "$GMS_BIN" db merge r.db -o m.db --remat-limit 2
[ ! -e x.png ] || fail "a rejected plot wrote a chart"

# two traces with one file name (two experiments' x.gmt) are two panels, told apart by their
# content hash, and a hash prefix picks one of them in the filters
mkdir -p a b
cp "$GMS_SOURCE_DIR/traces/samples/unet-small.gmt" a/x.gmt
cp "$GMS_SOURCE_DIR/traces/samples/resnet-small.gmt" b/x.gmt
"$GMS_BIN" sweep a/x.gmt b/x.gmt --policies dtr --budgets 0.6,0.9 --db same.db --quiet || fail "sweep"
"$GMS_BIN" plot overhead same.db --script same.gp -o same.svg || fail "plot of same-named traces"
ha=$("$GMS_BIN" db export same.db --csv | awk -F, 'NR > 1 {print $2}' | sort -u | head -1)
[ "$(grep -c "x (${ha:0:8})" same.gp)" -ge 1 ] || fail "panel titles do not tell the traces apart"
[ "$(grep -Eo "x \([0-9a-f]{8}\)" same.gp | sort -u | wc -l)" -eq 2 ] || fail "two panels, two hashes"
"$GMS_BIN" db runs same.db --trace "${ha:0:8}" | grep -q "^2 runs: " || fail "hash prefix filter"
echo PASS
