#!/usr/bin/env bash
# db runs prints a table with a tally, db export writes CSV and JSON (atomically with -o),
# and db refuses what is not a result store.
# shellcheck source=tests/cli/analysis/lib.sh
source "$(dirname "$0")/lib.sh"
"$GMS_BIN" sweep "$UNET" --policies dtr,random --seeds 2 --budgets 0.2,0.6 --db r.db --quiet

"$GMS_BIN" db runs r.db > runs.txt
head -1 runs.txt | grep -q '^TRACE *POLICY *PARAMS *LIMIT *SEMANTICS *ALLOCATOR *RATIO' || fail "no table header: $(head -1 runs.txt)"
grep -q '^6 runs: ' runs.txt || fail "no tally line: $(tail -1 runs.txt)"
grep -q 'seed=1' runs.txt || fail "random seeds are not listed"
"$GMS_BIN" db runs r.db --policy dtr | grep -q '^2 runs: ' || fail "--policy does not filter"
"$GMS_BIN" db runs r.db --trace 'unet*' | grep -q '^6 runs: ' || fail "--trace with a glob lost runs"
# a name that matches nothing is an error naming what the store holds, not an empty table
expect_fail "no trace 'nothing\*' in r.db; it holds: unet-small" "$GMS_BIN" db runs r.db --trace 'nothing*'

"$GMS_BIN" db export r.db --csv -o runs.csv
[ "$(head -1 runs.csv | cut -d, -f1-6)" = "trace,trace_hash,policy,params,ratio,budget" ] ||
  fail "unexpected CSV header: $(head -1 runs.csv)"
[ "$(tail -n +2 runs.csv | wc -l)" -eq 6 ] || fail "CSV does not hold 6 runs"
# a failed run has an empty overhead; an ok run a number >= 1
awk -F, 'NR > 1 && $9 != "ok" && $10 != "" {exit 1}' runs.csv || fail "failed run with an overhead"
awk -F, 'NR > 1 && $9 == "ok" && !($10 >= 1) {exit 1}' runs.csv || fail "ok run without overhead"

"$GMS_BIN" db export r.db --json -o runs.json
if command -v jq >/dev/null; then
  [ "$(jq length runs.json)" -eq 6 ] || fail "JSON does not hold 6 runs"
  jq -e 'all(.[]; (.status == "ok") == (.overhead != null))' runs.json >/dev/null ||
    fail "JSON overhead is not null exactly for failed runs"
else
  grep -q '"policy": "random"' runs.json || fail "JSON lacks the runs"
fi
"$GMS_BIN" db export r.db --csv | diff - runs.csv || fail "stdout export differs from -o export"
expect_fail 'say which format' "$GMS_BIN" db export r.db
expect_fail 'cannot open' "$GMS_BIN" db runs absent.db
echo "not a db" > text.db
expect_fail 'not a SQLite database' "$GMS_BIN" db runs text.db
expect_fail 'not a SQLite database' "$GMS_BIN" db merge r.db text.db -o m.db
[ ! -e m.db ] || fail "a failed merge left its output"
# the same runs with other results (a doubled overhead) are refused, naming the first run and
# both values, unless --prefer says which to keep; equal copies merge silently (issue 31)
sql() { # $1: the store, $2: SQL; the first column of the first row (no sqlite3 CLI needed)
  python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); r = c.execute(sys.argv[2]).fetchone(); c.commit()
print(r[0] if r else "")' "$1" "$2"
}
cp r.db other.db
sql other.db "UPDATE runs SET overhead = overhead * 2 WHERE status = 'ok'" >/dev/null
cp r.db same.db
"$GMS_BIN" db merge r.db same.db -o same-m.db 2>/dev/null || fail "equal copies did not merge"
expect_fail "run\(s\) of other.db are in an earlier input with other results; the first: trace unet-small .*policy (dtr|random).*r.db has ok, overhead [0-9.]+.*other.db has ok, overhead [0-9.]+.*--prefer" \
  "$GMS_BIN" db merge r.db other.db -o c.db
[ ! -e c.db ] || fail "a refused merge left its output"
expect_fail "--prefer 'best': give first, last or newer" "$GMS_BIN" db merge r.db other.db -o c.db --prefer best
expect_fail "--prefer is an option of db merge only" "$GMS_BIN" db runs r.db --prefer last
"$GMS_BIN" db merge r.db other.db -o c.db --prefer last 2>merge.err
grep -q "took the last input's one (--prefer last)" merge.err || fail "no count of replaced runs: $(cat merge.err)"
[ "$(sql c.db 'SELECT sum(overhead) FROM runs')" = "$(sql other.db 'SELECT sum(overhead) FROM runs')" ] ||
  fail "--prefer last did not keep the last input's results"
"$GMS_BIN" db merge r.db other.db -o c.db --prefer first --force 2>/dev/null
[ "$(sql c.db 'SELECT sum(overhead) FROM runs')" = "$(sql r.db 'SELECT sum(overhead) FROM runs')" ] ||
  fail "--prefer first did not keep the first input's results"
no_temp_files
echo PASS
