#!/usr/bin/env bash
# Without gnuplot a chart fails clearly and leaves no file; gnuplot's own errors are shown.
# shellcheck source=tests/cli/analysis/lib.sh
source "$(dirname "$0")/lib.sh"
"$GMS_BIN" sweep "$UNET" --policies lru --budgets 0.5,1.0 --db r.db --quiet
gms=$(command -v "$GMS_BIN" || echo "$GMS_BIN")
expect_fail 'gnuplot not found on PATH.*install' env PATH=/nonexistent "$gms" plot overhead r.db -o a.png
expect_fail 'gnuplot not found on PATH' env PATH=/nonexistent "$gms" plot timeline "$UNET" \
  --policy lru --budget 0.5 -o b.png
[ ! -e a.png ] && [ ! -e b.png ] || fail "a chart file appeared without gnuplot"

# a "gnuplot" that fails: its error output reaches the user, no chart appears
cat > fake-gnuplot <<'SH'
#!/bin/sh
echo "line 3: this fake gnuplot cannot draw" >&2
exit 1
SH
chmod +x fake-gnuplot
expect_fail 'this fake gnuplot cannot draw' env GMS_GNUPLOT="$PWD/fake-gnuplot" "$gms" plot overhead r.db -o c.png
[ ! -e c.png ] || fail "a failed gnuplot left a chart"
no_temp_files
echo PASS
