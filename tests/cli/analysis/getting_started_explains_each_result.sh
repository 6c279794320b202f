#!/usr/bin/env bash
# End-to-end (issue 32 item 13): in docs/getting-started.md step 4, every 'sim' line the page
# gives ends with status ok (a reader sees the result it talks about), the overheads the text
# quotes are the ones the commands print, and the page says why the caching allocator needs
# more memory (fragmentation) and what happens at 0.6 (oom), which it shows as text.
. "$(dirname "$0")/lib.sh"
DOC="$GMS_SOURCE_DIR/docs/getting-started.md"
step4=$(sed -n '/^## 4\./,/^## 5\./p' "$DOC")
"$GMS_BIN" synth --model transformer --layers 4 --hidden 256 --heads 4 --vocab 2048 \
  --iterations 4 --vary-input 64:256 -o job.gmt >/dev/null || fail "synth"
n=0
while IFS= read -r line; do
  cmd=${line#\$ gpumemsim }
  eval "\"\$GMS_BIN\" $cmd --json" >out.json 2>err.txt || fail "'gpumemsim $cmd' failed: $(cat err.txt)"
  st=$(jq -r .status out.json)
  [ "$st" = ok ] || fail "step 4 shows 'gpumemsim $cmd', which ends in $st"
  ov=$(jq -r '.overhead * 100 | round / 100' out.json)
  printf -v ov '%.2f' "$ov"
  grep -q "${ov}x" <<<"$step4" || fail "the page does not quote $cmd's overhead ${ov}x"
  n=$((n + 1))
done < <(echo "$step4" | grep '^\$ gpumemsim sim ')
[ "$n" -ge 2 ] || fail "only $n sim lines in step 4"
grep -q -- "--allocator caching" <<<"$step4" || fail "step 4 lost the caching allocator"
grep -qi "fragment" <<<"$step4" || fail "step 4 does not explain fragmentation"
# the claim about 0.6 with the caching allocator holds
st=$("$GMS_BIN" sim job.gmt --policy dtr --budget 0.6 --allocator caching --json | jq -r .status)
[ "$st" = oom ] && grep -q "0.6 the run ends in" <<<"$step4" || fail "0.6 with caching: $st"
echo ok
