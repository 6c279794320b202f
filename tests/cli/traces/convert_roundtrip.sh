#!/usr/bin/env bash
# Every DTR paper log converts to .gmt and back to a byte-identical log; .gmt -> .gmt and
# log -> log copies are lossless too; the summary line reports the event count.
. "$(dirname "$0")/common.sh"
n=0
for log in "$DTR_DIR"/*.log; do
  b=$(basename "$log" .log)
  "$GMS_BIN" convert "$log" -o "$T/$b.gmt" >"$T/summary" || fail "convert $b to .gmt"
  lines=$(wc -l <"$log")
  events=$(sed -n 's/.*: \([0-9]*\) events,.*/\1/p' "$T/summary")
  [ -n "$events" ] && [ "$events" -gt 0 ] && [ "$events" -lt "$lines" ] ||
    fail "$b: summary '$(cat "$T/summary")' has no plausible event count"
  "$GMS_BIN" convert "$T/$b.gmt" --to dtr-log -o "$T/$b.back.log" --quiet >"$T/quiet" ||
    fail "convert $b.gmt back to a log"
  [ ! -s "$T/quiet" ] || fail "--quiet printed: $(cat "$T/quiet")"
  cmp "$log" "$T/$b.back.log" || fail "$b: log -> gmt -> log is not byte-identical"
  "$GMS_BIN" convert -q "$T/$b.gmt" --to gmt -o "$T/$b.copy.gmt" || fail "gmt -> gmt $b"
  "$GMS_BIN" convert -q "$T/$b.copy.gmt" --to dtr-log -o "$T/$b.copy.log" || fail "$b copy back"
  cmp "$log" "$T/$b.copy.log" || fail "$b: gmt -> gmt lost something"
  "$GMS_BIN" convert -q "$log" --to dtr-log -o "$T/$b.same.log" || fail "log -> log $b"
  cmp "$log" "$T/$b.same.log" || fail "$b: log -> log is not byte-identical"
  n=$((n + 1))
done
[ "$n" -ge 5 ] || fail "expected the 5 DTR paper logs in $DTR_DIR, found $n"

# default output name: extension replaced, next to the input
cp "$DTR_DIR"/unet-*.log "$T/unet.log"
"$GMS_BIN" convert -q "$T/unet.log" || fail "convert with the default output name"
[ -s "$T/unet.gmt" ] || fail "default output unet.gmt not written"

# pipes work as inputs (the format is sniffed without reopening the file)
"$GMS_BIN" convert -q /dev/stdin -o "$T/pipe.gmt" <"$T/unet.log" || fail "convert from a pipe"
cat "$T/pipe.gmt" | "$GMS_BIN" convert -q /dev/stdin --to dtr-log -o "$T/pipe.log" ||
  fail "convert a .gmt from a pipe"
cmp "$T/unet.log" "$T/pipe.log" || fail "the round trip through pipes is not byte-identical"

# a hand-written log with non-x<digits> names, views, MUTATE, COPY_FROM, annotation values,
# empty lists, extreme integers and a string jansson escapes
cat >"$T/hand.log" <<'LOG'
{"ANNOTATION":"START","INSTRUCTION":"ANNOTATE"}
{"INSTRUCTION":"CONSTANT","NAME":"weight"}
{"INSTRUCTION":"MEMORY","MEMORY":"16","NAME":"weight"}
{"ARGS":["weight","x7"],"INSTRUCTION":"CALL","NAME":"mm","RESULT":["out","x12"],"TIME":"5"}
{"INSTRUCTION":"MEMORY","MEMORY":"8","NAME":"out"}
{"ALIAS":"-1","INSTRUCTION":"ALIAS","NAME":"out"}
{"INSTRUCTION":"MEMORY","MEMORY":"16","NAME":"x12"}
{"ALIAS":"0","INSTRUCTION":"ALIAS","NAME":"x12"}
{"ARGS":["out","x12"],"INSTRUCTION":"MUTATE","MUTATE":[1,0],"NAME":"relu_","TIME":"3"}
{"DST":"out","INSTRUCTION":"COPY_FROM","SRC":"x12"}
{"ANNOTATION":"BACKWARD","INSTRUCTION":"ANNOTATE"}
{"ANNOTATION":"iteration","INSTRUCTION":"ANNOTATE","VALUE":"4096"}
{"ARGS":[],"INSTRUCTION":"CALL","NAME":"sync","RESULT":[],"TIME":"0"}
{"ARGS":["y"],"INSTRUCTION":"MUTATE","MUTATE":[],"NAME":"no_op_","TIME":"18446744073709551615"}
{"ARGS":["x12"],"INSTRUCTION":"CALL","NAME":"café \"q\"","RESULT":["x4611686018427387904"],"TIME":"1"}
{"INSTRUCTION":"MEMORY","MEMORY":"9223372036854775807","NAME":"x4611686018427387904"}
{"ALIAS":"0","INSTRUCTION":"ALIAS","NAME":"x4611686018427387904"}
{"INSTRUCTION":"RELEASE","NAME":"weight"}
LOG
"$GMS_BIN" convert -q "$T/hand.log" -o "$T/hand.gmt" || fail "convert hand.log"
"$GMS_BIN" convert -q "$T/hand.gmt" --to dtr-log -o "$T/hand.back.log" || fail "hand.gmt back"
cmp "$T/hand.log" "$T/hand.back.log" || fail "hand.log does not round-trip"
# a synthetic trace (a NAME event before each weight's CONSTANT) exported to a log keeps the
# weights' names, says nothing (-q), and re-imports to the same replayable trace (less its
# layer scopes, which a DTR log cannot hold)
"$GMS_BIN" synth --model mlp -o "$T/mlp.gmt" >/dev/null || fail "synth mlp"
"$GMS_BIN" convert -q "$T/mlp.gmt" --to dtr-log -o "$T/mlp.log" 2>"$T/warn" || fail "mlp to log"
[ ! -s "$T/warn" ] || fail "unexpected warning exporting mlp: $(cat "$T/warn")"
grep -q '"NAME":"layers.0.weight"' "$T/mlp.log" || fail "weight names lost in the exported log"
"$GMS_BIN" convert -q "$T/mlp.log" -o "$T/mlp2.gmt" || fail "mlp log back to gmt"
for f in mlp mlp2; do
  "$GMS_BIN" info --json "$T/$f.gmt" |
    jq -S 'del(.file, .meta, .events, .events_by_kind.NAME, .events_by_kind.SCOPE, .scopes, .layers)' >"$T/$f.json" || fail "info $f"
done
diff "$T/mlp.json" "$T/mlp2.json" >&2 || fail "mlp changed through a DTR log"
jq -e '.baseline_memory > 0' "$T/mlp2.json" >/dev/null || fail "mlp2 has no baseline"

# a log not in canonical form (spaces, key order, escapes) comes back canonical: the same
# instructions with the same values, byte-identical once both are normalized by jq
command -v jq >/dev/null || fail "jq is required (scripts/setup-deps.sh installs it)"
cat >"$T/loose.log" <<'LOG'
{ "INSTRUCTION" : "ANNOTATE", "ANNOTATION" : "START" }
{"NAME":"x1","INSTRUCTION":"CONSTANT"}
{"NAME":"x1","MEMORY":"64","INSTRUCTION":"MEMORY"}
{"TIME":"7","RESULT":["x2"],"NAME":"caf\u00e9\/op","INSTRUCTION":"CALL","ARGS":["x1"]}
{"NAME":"x2","MEMORY":"64","INSTRUCTION":"MEMORY"}
{"NAME":"x2","INSTRUCTION":"ALIAS","ALIAS":"0"}
{"MUTATE":[ 0 ],"TIME":"3","NAME":"relu_","INSTRUCTION":"MUTATE","ARGS":[ "x2" ]}
{"SRC":"x2","INSTRUCTION":"COPY_FROM","DST":"x1"}
LOG
"$GMS_BIN" convert -q "$T/loose.log" -o "$T/loose.gmt" || fail "convert loose.log"
"$GMS_BIN" convert -q "$T/loose.gmt" --to dtr-log -o "$T/loose.back.log" || fail "loose.gmt back"
! cmp -s "$T/loose.log" "$T/loose.back.log" || fail "loose.log came back unnormalized"
diff <(jq -cS . "$T/loose.log") <(jq -cS . "$T/loose.back.log") >&2 ||
  fail "loose.log: instructions or values changed in the round trip"
[ "$(wc -l <"$T/loose.back.log")" = 8 ] || fail "loose.log: line count changed"
echo "ok: $n logs round-trip byte for byte"
