#!/usr/bin/env bash
# Inputs as users have them: gzip-compressed traces and logs are read as they are (sniffed by
# their bytes, not their names), and '-' is standard input for sim and info (and standard
# output for db export -o): the same results as the plain files; a cut or foreign gzip file,
# or '-' given to sweep, is a clear error. On the project's samples (no ../shared needed).
set -u
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1
T="$GMS_SOURCE_DIR/traces/samples/unet-small.gmt"
"$GMS_BIN" convert "$T" --to dtr-log -o u.log || fail "convert"
gzip -c "$T" > u.gmt.gz && gzip -c u.log > u.log.gz
for f in "$T" u.gmt.gz u.log u.log.gz; do
  "$GMS_BIN" sim "$f" --policy dtr --budget 0.6 --json | jq -c '[.status, .overhead, .evictions]'
done > results.txt || fail "sim on a gzip input"
[ "$(sort -u results.txt | wc -l)" -eq 1 ] || fail "gzip inputs replay differently: $(cat results.txt)"
"$GMS_BIN" info u.log.gz | grep -q "(dtr-log)" || fail "info does not see a DTR log in u.log.gz"
"$GMS_BIN" sim - --policy dtr --budget 0.6 --json < "$T" | jq -c '[.status, .overhead, .evictions]' \
  > stdin.txt || fail "sim - (standard input)"
[ "$(cat stdin.txt)" = "$(head -1 results.txt)" ] || fail "sim - differs: $(cat stdin.txt)"
"$GMS_BIN" info - < u.log | grep -q "(dtr-log)" || fail "info - on a DTR log"
out=$("$GMS_BIN" sweep - --db s.db < "$T" 2>&1); rc=$?
[ $rc -eq 2 ] && echo "$out" | grep -q "standard input" || fail "sweep -: rc $rc: $out"
"$GMS_BIN" sweep "$T" --policies dtr --budgets 0.6 --db s.db --quiet || fail "sweep"
"$GMS_BIN" db export s.db --csv -o - | grep -q "^unet-small," || fail "db export -o -"
[ ! -e ./- ] || fail "db export -o - wrote a file named '-'"
head -c 60 u.gmt.gz > cut.gz
out=$("$GMS_BIN" info cut.gz 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "cut.gz" || fail "a cut gzip file: rc $rc: $out"
printf 'hello' | gzip -c > hello.gz
out=$("$GMS_BIN" sim hello.gz 2>&1); rc=$?
[ $rc -eq 1 ] && echo "$out" | grep -q "not a .gmt trace, DTR JSON log or Kineto trace" \
  || fail "foreign gzip content: rc $rc: $out"
echo ok
