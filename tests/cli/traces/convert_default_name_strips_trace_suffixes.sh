#!/usr/bin/env bash
# End-to-end (issue 32 item 9): 'convert IN' without -o names its output after IN with the whole
# trace suffix replaced: job.json.gz -> job.gmt (not job.json.gmt), job.log.gz, job.json and
# job.log -> job.gmt, and with --to dtr-log job.gmt -> job.log.
GMS_NO_SHARED=1
. "$(dirname "$0")/common.sh"
: "${GMS_SOURCE_DIR:?}"
cd "$T"
"$GMS_BIN" convert "$GMS_SOURCE_DIR/traces/samples/mlp-small.gmt" --to dtr-log -o mlp.log
for name in dlrm_rank3_et.json.gz job.log.gz plain.json other.log; do
  stem=${name%%.*}
  case $name in
    *.gz) gzip -c mlp.log >"$name" ;;
    *) cp mlp.log "$name" ;;
  esac
  "$GMS_BIN" convert "$name" >/dev/null 2>&1 || fail "convert $name"
  [ -f "$stem.gmt" ] || fail "convert $name wrote $(ls) instead of $stem.gmt"
  ls | grep -Eq '\.(json|log)\.gmt$' && fail "convert $name kept a suffix: $(ls)"
  rm -f "$stem.gmt"
done
"$GMS_BIN" convert job.log.gz -o job.gmt
cp job.gmt back.gmt
"$GMS_BIN" convert back.gmt --to dtr-log >/dev/null || fail "convert back.gmt --to dtr-log"
[ -f back.log ] || fail "--to dtr-log wrote $(ls), not back.log"
echo ok
