#!/usr/bin/env bash
# Bad plugins fail with a clear error naming the plugin and a non-zero exit, in sim and sweep,
# and leave no store behind; unknown names still list the built-in policies.
. "$(dirname "$0")/common.sh"
G=$GMS_BIN
U=$GMS_SOURCE_DIR/traces/samples/unet-small.gmt
chk() { # WHAT SO REGEX
  expect_fail "sim $1" "$G" sim "$U" --policy "$2" --budget 0.5
  expect_err_matches "sim $1" "$3"
  expect_err_matches "sim $1 names the plugin" "$(basename "$2")"
  expect_fail "sweep $1" "$G" sweep "$U" --policies "dtr,$2" --budgets 0.5 --db "$T/x.db" --quiet
  expect_err_matches "sweep $1" "$3"
  [ ! -e "$T/x.db" ] || fail "sweep $1 left a store"
}
chk 'ABI mismatch' "$GMS_PLUGIN_BAD_ABI" 'ABI version 3.*version 2.*rebuild'
chk 'built-in name' "$GMS_PLUGIN_BAD_NAME" "named 'dtr' like a built-in"
chk 'no score' "$GMS_PLUGIN_BAD_NO_SCORE" 'exactly one of score and choose'
chk 'no entry' "$GMS_PLUGIN_BAD_NO_ENTRY" 'no exported function gpumemsim_policy'
printf 'not an ELF file\n' >"$T/text.so"
chk 'not a shared object' "$T/text.so" 'cannot load it as a shared object'
chk 'missing file' "$T/absent.so" 'No such file'
expect_fail 'unknown name' "$G" sim "$U" --policy nosuch --budget 0.5
expect_err_matches 'unknown name' "unknown policy 'nosuch'.*dtr-local"

# a score that returns NaN: sim fails naming the policy; sweep records every other run,
# nothing for the plugin, and exits non-zero saying so
expect_fail 'NaN score' "$G" sim "$U" --policy "$GMS_PLUGIN_BAD_NAN" --budget 0.5
expect_err_matches 'NaN score' "policy 'test-bad' scored storage [0-9]+ as NaN"
expect_fail 'fit NaN' "$G" fit "$U" --policies "dtr,$GMS_PLUGIN_BAD_NAN" -j 2 --quiet
expect_err_matches 'fit NaN' "policy 'test-bad' scored storage [0-9]+ as NaN"
# ... and dtr's answer stands beside the failure (issue 31)
grep -Eq '^dtr +[0-9]+ +[0-9.]+ +[0-9.]+ ' "$T/cmd.stdout" || fail "fit NaN lost dtr's answer: $(cat "$T/cmd.stdout")"
grep -Eq "^test-bad +- .*failed: .*scored storage [0-9]+ as NaN" "$T/cmd.stdout" ||
  fail "fit NaN does not report the failure beside the answers: $(cat "$T/cmd.stdout")"
expect_fail 'sweep NaN' "$G" sweep "$U" --policies "dtr,$GMS_PLUGIN_BAD_NAN,lru" --budgets 0.4,0.6 \
  --db "$T/n.db" -j 2 --quiet
expect_err_matches 'sweep NaN' '2 run\(s\) of plugin policies failed.*test-bad@[0-9a-f]+.*NaN'
"$G" db export "$T/n.db" --json -o "$T/n.json"
[ "$(jq -r '[.[] | .policy] | sort | join(",")' "$T/n.json")" = "dtr,dtr,lru,lru" ] ||
  fail "sweep with a NaN plugin recorded $(jq -c '[.[] | .policy]' "$T/n.json")"

# a score that segfaults: sim reports the crash naming the plugin (no crash of gpumemsim);
# sweep records dtr's and lru's runs, nothing for the plugin, and exits non-zero. Under ASan
# (or clang's UBSan) a SEGV would be the sanitizer's report and exit status, not the signal:
# let the signal through.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}handle_segv=0" # clang's UBSan alone
crash="plugin 'test-bad' \\(.*gms_plugin_bad_segv.so\\) crashed \\(signal 11, Segmentation fault\\)"
expect_fail 'segfault' "$G" sim "$U" --policy "$GMS_PLUGIN_BAD_SEGV" --budget 0.5
expect_err_matches 'segfault' "^gpumemsim sim: .*unet-small.gmt: $crash"
[ ! -s "$T/cmd.stdout" ] || fail "sim with a crashing plugin printed a result"
expect_fail 'fit segfault' "$G" fit "$U" --policies "lru,$GMS_PLUGIN_BAD_SEGV,dtr" --quiet --json
expect_err_matches 'fit segfault' "$crash"
jq -e '.results | length == 3 and (.[0].policy == "lru" and .[0].found and .[0].error == null)
       and (.[2].policy == "dtr" and .[2].found) and (.[1].found | not)
       and (.[1].error | test("crashed \\(signal 11"))' "$T/cmd.stdout" >/dev/null ||
  fail "fit with a crashing plugin lost the others' answers: $(cat "$T/cmd.stdout")"
expect_fail 'sweep segfault' "$G" sweep "$U" --policies "dtr,$GMS_PLUGIN_BAD_SEGV,lru" \
  --budgets 0.4,0.6 --db "$T/s.db" -j 2 --quiet
expect_err_matches 'sweep segfault' "2 run\\(s\\) of plugin policies failed.*test-bad@[0-9a-f]+.*$crash"
"$G" db export "$T/s.db" --json -o "$T/s.json"
[ "$(jq -r '[.[] | .policy] | sort | join(",")' "$T/s.json")" = "dtr,dtr,lru,lru" ] ||
  fail "sweep with a crashing plugin recorded $(jq -c '[.[] | .policy]' "$T/s.json")"
# the isolated plugin runs still give the plugin's own results (the dtr-local test plugin)
"$G" sweep "$U" --policies "dtr-local,$GMS_PLUGIN_DTR_LOCAL" --budgets 0.5,0.7 --db "$T/ok.db" \
  -j 2 --quiet
"$G" db export "$T/ok.db" --json -o "$T/ok.json"
for b in 0.5 0.7; do
  [ "$(jq -c --argjson b $b '[.[] | select(.ratio == $b) | [.status, .overhead, .evictions,
        .remats, .peak_memory]] | [length, (unique | length)]' "$T/ok.json")" = "[2,1]" ] ||
    fail "isolated plugin runs differ from dtr-local at $b: $(cat "$T/ok.json")"
done
echo ok
