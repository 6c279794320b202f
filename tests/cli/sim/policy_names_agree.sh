#!/usr/bin/env bash
# End-to-end (issue 32 item 7): one catalog answers 'sim --list-policies', the unknown-policy
# messages of sim, sweep and fit, and sweep's "all". The listing names every kind (eviction
# policies, checkpoint planners, solved schedules such as checkmate); each message names every
# entry of the kinds its command runs and says what a name of another kind is; "all" is the
# eviction policies the memory model can run, as --help says.
set -u
: "${GMS_BIN:?}" "${GMS_TMP:?}" "${GMS_SOURCE_DIR:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$GMS_TMP" && mkdir -p "$GMS_TMP" && cd "$GMS_TMP" || exit 1
UNET="$GMS_SOURCE_DIR/traces/samples/unet-small.gmt"

list=$("$GMS_BIN" sim --list-policies) || fail "--list-policies"
echo "$list" | grep -Eq '^checkmate +solved: ' || fail "checkmate not listed as solved: $list"
echo "$list" | grep -Eq '^checkmate-approx +solved: ' || fail "checkmate-approx not listed"
echo "$list" | grep -Eq '^ckpt-all +planner: ' || fail "ckpt-all not listed as a planner"
echo "$list" | grep -Eq '^mimose +planner: ' || fail "mimose not listed as a planner"
all=$(echo "$list" | awk '{print $1}')
evict=$(echo "$list" | awk '$2 != "planner:" && $2 != "solved:" {print $1}')
[ "$(echo "$evict" | wc -l)" -ge 15 ] || fail "few eviction policies: $evict"

# sim and sweep run every kind: their messages name every listed name
sim_msg=$("$GMS_BIN" sim "$UNET" --policy nope --budget 0.5 2>&1) && fail "sim took 'nope'"
sweep_msg=$("$GMS_BIN" sweep "$UNET" --policies dtr,nope --budgets 0.5 --db s.db 2>&1) &&
  fail "sweep took 'nope'"
[ ! -e s.db ] || fail "a refused sweep left a store"
for p in $all; do
  echo "$sim_msg" | grep -Eq "[ :,]$p(,|;|$)" || fail "sim's message lacks $p: $sim_msg"
  echo "$sweep_msg" | grep -Eq "[ :,]$p(,|;|$)" || fail "sweep's message lacks $p: $sweep_msg"
done
echo "$sim_msg" | grep -q "solved schedules: checkmate" || fail "sim: kinds unnamed: $sim_msg"

# fit runs eviction policies: its message names each, and says what the other kinds are
fit_msg=$("$GMS_BIN" fit "$UNET" --max-overhead 1.2 --policies nope 2>&1) && fail "fit took nope"
for p in $evict; do
  echo "$fit_msg" | grep -Eq "[ :,]$p(,|;|$)" || fail "fit's message lacks $p: $fit_msg"
done
echo "$fit_msg" | grep -q "sim --list-policies" || fail "fit: no pointer to the list: $fit_msg"
# fit also searches the solved schedules (a bisection over solves, docs/fit.md): its message
# names them; planners it does not run, and says so
for p in checkmate checkmate-approx; do
  echo "$fit_msg" | grep -Eq "[ :,]$p(,|;|$)" || fail "fit's message lacks $p: $fit_msg"
done
out=$("$GMS_BIN" fit "$UNET" --max-overhead 1.2 --policies ckpt-all 2>&1) && fail "fit ckpt-all"
echo "$out" | grep -q "'ckpt-all' is a checkpoint planner" || fail "fit ckpt-all: $out"

# sweep's "all": --help says what it is, and it is what the ideal model runs of the
# eviction policies (address-aware ones, which sim refuses on it, left out)
help=$("$GMS_BIN" sweep --help)
echo "$help" | grep -q "default 'all': every" || fail "sweep --help: no 'all'"
echo "$help" | grep -Eq '^checkmate +solved: ' || fail "sweep --help lacks checkmate"
want=$(for p in $evict; do
  "$GMS_BIN" sim "$UNET" --policy "$p" --budget 1.0 >/dev/null 2>&1 && echo "$p"
done | sort)
"$GMS_BIN" sweep "$UNET" --budgets 1.0 --db all.db --quiet || fail "sweep (default all)"
got=$("$GMS_BIN" db export all.db --json | python3 -c \
  'import json,sys; print("\n".join(sorted({r["policy"] for r in json.load(sys.stdin)})))')
[ "$got" = "$want" ] || fail "default sweep ran [$got], expected [$want]"
"$GMS_BIN" sweep "$UNET" --policies all,ckpt-all --budgets 1.0 --db all2.db --quiet ||
  fail "sweep --policies all,ckpt-all"
got2=$("$GMS_BIN" db export all2.db --json | python3 -c \
  'import json,sys; print("\n".join(sorted({r["policy"] for r in json.load(sys.stdin)})))')
[ "$got2" = "$(printf '%s\nckpt-all\n' "$want" | sort)" ] || fail "all,ckpt-all ran [$got2]"
echo "ok"
