#!/usr/bin/env bash
# docs/getting-started.md: every "$ gpumemsim ..." line runs as written, in a fresh folder, in
# the order the page gives them (the line marked "needs a GPU" is skipped; the chart lines
# where gnuplot is missing), and leaves the files the page promises.
source "$(dirname "$0")/lib.sh"
DOC="$GMS_SOURCE_DIR/docs/getting-started.md"
[ -f "$DOC" ] || fail "no $DOC"
n=0
while IFS= read -r line; do
  cmd=${line#\$ gpumemsim }
  case "$line" in *"needs a GPU"*) continue ;; esac
  case "$cmd" in plot\ *) command -v gnuplot >/dev/null || continue ;; esac
  # shellcheck disable=SC2086 # the page's words, split as a shell would
  eval "\"\$GMS_BIN\" $cmd" > out.txt 2>&1 || fail "'gpumemsim $cmd' failed: $(cat out.txt)"
  n=$((n + 1))
done < <(grep '^\$ gpumemsim ' "$DOC")
[ "$n" -ge 8 ] || fail "only $n commands found in the page"
[ -f job.gmt ] && [ -f results.db ] || fail "the page's trace and store were not made"
if command -v gnuplot >/dev/null; then
  [ -s overhead.pdf ] && [ -s timeline.png ] || fail "the page's charts were not drawn"
fi
echo ok
