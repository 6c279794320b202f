#!/usr/bin/env bash
# Layer scopes end to end: synth writes them (transformer blocks with attn and mlp), info
# counts them and the layers planners see, convert keeps them between .gmt files byte for
# byte and drops them with a note for a DTR log, and a replay with scopes is the replay
# without them (sim --json equal but for the wall time). A committed 1.0 sample (no scopes)
# still reads and gets segmented layers. No ../shared needed.
set -u
: "${GMS_BIN:?}" "${GMS_SOURCE_DIR:?}" "${GMS_TMP:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null || fail "jq is required (scripts/setup-deps.sh installs it)"
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1
small=(--model transformer --layers 2 --hidden 64 --heads 2 --vocab 128 --seq 16 --batch 2
       --iterations 2)
"$GMS_BIN" synth "${small[@]}" -o s.gmt -q || fail "synth with scopes"
"$GMS_BIN" synth "${small[@]}" --no-scopes -o n.gmt -q || fail "synth --no-scopes"

# info: 9 top-level-or-nested scopes per pass (embeddings, h.0, h.0.attn, h.0.mlp, h.1, ...,
# head, loss), forward and backward, 2 iterations; 5 top-level forward layers per iteration
"$GMS_BIN" info --json s.gmt >s.json || fail "info s.gmt"
jq -e '.scopes == {"count": 36, "max_depth": 2} and .events_by_kind.SCOPE == 72 and
       .layers == {"source": "scopes", "iterations": 2, "per_iteration": [5, 5]}' s.json \
  >/dev/null || fail "info of the scoped trace: $(jq -c '.scopes, .layers' s.json)"
"$GMS_BIN" info --json n.gmt >n.json || fail "info n.gmt"
jq -e '.scopes.count == 0 and .events_by_kind.SCOPE == 0 and .layers.source == "segments"' \
  n.json >/dev/null || fail "info of the unscoped trace: $(jq -c '.scopes, .layers' n.json)"
[ "$(jq '.events' s.json)" -eq "$(( $(jq '.events' n.json) + 72 ))" ] ||
  fail "--no-scopes should remove exactly the 72 SCOPE events"
"$GMS_BIN" info s.gmt | grep -q '^layers: *5 per iteration, 2 iterations, from the scopes$' ||
  fail "info text does not report the layers: $("$GMS_BIN" info s.gmt)"

# the replay ignores scopes: every figure but the wall time is the same
for pol in dtr lru msps; do
  for b in 0.8 0.9; do
    "$GMS_BIN" sim s.gmt --policy $pol --budget $b --json | jq -S 'del(.wall_s, .file, .trace)' >a.json ||
      fail "sim s.gmt $pol $b"
    "$GMS_BIN" sim n.gmt --policy $pol --budget $b --json | jq -S 'del(.wall_s, .file, .trace)' >b.json ||
      fail "sim n.gmt $pol $b"
    jq -e '.evictions > 0' a.json >/dev/null || fail "$pol at $b evicts nothing: $(cat a.json)"
    diff a.json b.json >&2 || fail "$pol at $b replays differently with scopes"
  done
done

# .gmt -> .gmt keeps every event, scopes included (the same bytes as synth wrote)
"$GMS_BIN" convert -q s.gmt -o c.gmt || fail "convert gmt -> gmt"
cmp -s s.gmt c.gmt || fail "gmt -> gmt changed the trace"
# -> DTR log: scopes dropped with a note naming how many; the ops are all there
"$GMS_BIN" convert s.gmt --to dtr-log -o s.log >out.txt 2>err.txt || fail "convert to log"
grep -q 'note: dropped 72 SCOPE events' err.txt || fail "no note about dropped scopes: $(cat err.txt)"
"$GMS_BIN" convert n.gmt --to dtr-log -o n.log >/dev/null 2>err2.txt || fail "convert n to log"
[ ! -s err2.txt ] || fail "a trace without scopes got a note: $(cat err2.txt)"
cmp -s s.log n.log || fail "the DTR logs of the traces with and without scopes differ"

# an older-minor file: the committed samples are .gmt 1.0 without scopes
old="$GMS_SOURCE_DIR/traces/samples/resnet-vary.gmt"
"$GMS_BIN" info --json "$old" >old.json || fail "info of a 1.0 sample"
jq -e '.scopes.count == 0 and .layers.source == "segments" and .layers.iterations == 3 and
       (.layers.per_iteration | all(. > 1))' old.json >/dev/null ||
  fail "1.0 sample: $(jq -c '.scopes, .layers' old.json)"
echo ok
