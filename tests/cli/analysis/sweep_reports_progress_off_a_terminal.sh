#!/usr/bin/env bash
# Off a terminal a sweep reports plain progress lines (start, end) and a summary that counts
# failed and skipped runs; --quiet prints nothing.
# shellcheck source=tests/cli/analysis/lib.sh
source "$(dirname "$0")/lib.sh"
args=("$UNET" --policies lru,dtr --budgets 0.5,1 --db p.db -j 2)

"$GMS_BIN" sweep "${args[@]}" 2>first.err
head -n 1 first.err | grep -Eq '^sweep: 0/4 runs \(0%\)' || fail "no start line: $(cat first.err)"
grep -Eq '^sweep: 4/4 runs \(100%\).*ETA 0s' first.err || fail "no end line: $(cat first.err)"
grep -Eq '^sweep: 4 runs in [0-9]+s \([0-9] ok, [0-9] oom, [0-9] remat-limit\); 0 already in p\.db were skipped$' \
  first.err || fail "no summary line: $(cat first.err)"
ok=$("$GMS_BIN" db export p.db --csv | grep -c ',ok,' || true)
oom=$("$GMS_BIN" db export p.db --csv | grep -c ',oom,' || true)
grep -q "($ok ok, $oom oom, $((4 - ok - oom)) remat-limit)" first.err ||
  fail "the summary's counts differ from the store ($ok ok, $oom oom): $(cat first.err)"
# expected outcomes are counted by name, never called failures
! grep -qi 'fail' first.err || fail "the progress calls outcomes failures: $(cat first.err)"

"$GMS_BIN" sweep "${args[@]}" 2>again.err
tail -n 1 again.err | grep -Eq '^sweep: 0 runs in .*; 4 already in p\.db were skipped$' ||
  fail "a repeated sweep does not say it skipped the stored runs: $(cat again.err)"

"$GMS_BIN" sweep "${args[@]}" --quiet 2>quiet.err
[ ! -s quiet.err ] || fail "--quiet printed: $(cat quiet.err)"
echo PASS
