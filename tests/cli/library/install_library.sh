#!/usr/bin/env bash
# libgpumemsim.so as a user gets it: install into a temporary prefix, check the library's
# SONAME and that it exports the public API and nothing internal, build a tiny C program with
# `pkg-config --cflags --libs gpumemsim` alone, run it on a trace (the committed sample, or the
# shared DTR log named in $1) with built-in policies and with the example plugin, and compare
# every figure with `gpumemsim sim --json`; and the installed Python module, where it is built.
. "$(dirname "$0")/../plugins/common.sh"
: "${GMS_BUILD_DIR:?}" "${GMS_CMAKE:?}" "${GMS_LIB_SOVERSION:?}"
TRACE=${1:-$GMS_SOURCE_DIR/traces/samples/unet-small.gmt}
[ -r "$TRACE" ] || fail "missing trace $TRACE"
P=$T/prefix
"$GMS_CMAKE" --install "$GMS_BUILD_DIR" --prefix "$P" >"$T/install.log"
pc=$(find "$P" -name gpumemsim.pc)
[ -n "$pc" ] || fail "no gpumemsim.pc installed"
export PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(pkg-config --variable=libdir gpumemsim)
so=$(cd "$libdir" && pwd -P)/libgpumemsim.so
[ -f "$so" ] || fail "not installed: $so"
for h in gpumemsim.h sim.h policy.h memory.h registry.h plugin.h gms_error.h link.h planner.h \
         planners.h sim_plan_report.h sim_peak.h; do
  [ -f "$P/include/gpumemsim/$h" ] || fail "header not installed: $h"
done

# the SONAME carries the library's ABI version, and that name is installed too
soname=$(objdump -p "$so" | awk '$1 == "SONAME" {print $2}')
[ "$soname" = "libgpumemsim.so.$GMS_LIB_SOVERSION" ] || fail "SONAME '$soname'"
[ -e "$libdir/$soname" ] || fail "$soname is not installed beside libgpumemsim.so"
# the public API is exported, internals are not
syms=$(nm -D --defined-only "$so" | awk '{print $3}' | sed 's/@.*//')
for s in sim_trace_load sim_run sim_runner_run sim_view_size sim_score_ratio pol_resolve \
         pol_find sim_memory_find gms_error_set sim_link_parse planner_find \
         planner_params_canon sim_iteration_report_layer; do
  grep -qx "$s" <<<"$syms" || fail "libgpumemsim.so does not export $s"
done
leaked=$(grep -Ev '^(sim_|pol_|planner_(find|count|at|params_canon)$|gms_error_|GPUMEMSIM_)' \
         <<<"$syms" || true)
[ -z "$leaked" ] || fail "libgpumemsim.so exports internals: $leaked"
for s in sim_regions_flush sim_evict_one pol_plugin_find planner_params_check sim_layers_at; do
  ! grep -qx "$s" <<<"$syms" || fail "libgpumemsim.so exports the internal $s"
done

# a program built with pkg-config alone (the rpath only spares it LD_LIBRARY_PATH)
cflags=()
[ "${GMS_SANITIZE:-OFF}" = ON ] && cflags=(-fsanitize=address,undefined)
cc -std=c11 -Wall -Wextra -Werror "${cflags[@]}" -o "$T/run_trace" \
  "$(dirname "$0")/run_trace.c" $(pkg-config --cflags --libs gpumemsim) -Wl,-rpath,"$libdir"
readelf -d "$T/run_trace" | grep -q "NEEDED.*\[libgpumemsim.so.$GMS_LIB_SOVERSION\]" ||
  fail "run_trace does not link libgpumemsim.so.$GMS_LIB_SOVERSION"

# the example plugin, built as docs/plugins.md says, loaded by the program through the library
mkdir "$T/plugin" && cp "$P/share/gpumemsim/examples/policy-plugin/"* "$T/plugin/"
make -C "$T/plugin" -s >/dev/null || fail "the example plugin does not build"

same() { # POLICY RATIO [EXPECTED_AS_POLICY]: run_trace's figures == gpumemsim sim --json's
  local got want
  got=$("$T/run_trace" "$TRACE" "$1" "$2") || fail "run_trace $1 $2 failed"
  want=$("$GMS_BIN" sim "$TRACE" --policy "${3:-$1}" --budget "$2" --json |
         jq -r '[.policy, .status, .overhead, .evictions, .remats, .peak_memory,
                 .baseline_memory] | map(tostring) | join(" ")')
  # the program prints 17 digits, jq the shortest repr: compare the overheads as numbers
  read -r gp gs go ge gr gm gb <<<"$got"; read -r wp ws wo we wr wm wb <<<"$want"
  [ "$gs $ge $gr $gm $gb" = "$ws $we $wr $wm $wb" ] && awk -v a="$go" -v b="$wo" \
    'BEGIN { exit !(b == "null" || a + 0 == b + 0) }' ||
    fail "$1 at $2: library '$got' != sim --json '$want'"
  echo "$gp"
}
for b in 0.4 0.7; do
  [ "$(same dtr $b)" = dtr ] || fail "policy id of dtr"
  same lru $b >/dev/null
  id=$(same "$T/plugin/my_policy.so" $b dtr-local)
  [[ $id == my-policy@* ]] || fail "plugin id '$id'"
done

# the Python module, where it is built, runs from the prefix (it finds the library there)
if [ -n "${GMS_PYTHON:-}" ]; then
  mod=$(find "$P" -name 'gpumemsim*.so' -path '*site-packages*')
  [ -n "$mod" ] || fail "the Python module is built but not installed under site-packages"
  got=$(cd "$T" && PYTHONPATH=$(dirname "$mod") "$GMS_PYTHON" -c '
import sys, gpumemsim
print(gpumemsim.__file__)
print(gpumemsim.sim(sys.argv[1], budget=0.7, score=lambda s: s.compute / (s.size * s.staleness))["clock"])
' "$TRACE") || fail "the installed Python module does not run"
  [ "$(head -1 <<<"$got")" = "$mod" ] || fail "imported $(head -1 <<<"$got"), not $mod"
  want=$("$GMS_BIN" sim "$TRACE" --policy dtr-local --budget 0.7 --json | jq .clock)
  [ "$(tail -1 <<<"$got")" = "$want" ] || fail "installed module: clock $got, sim: $want"
fi
echo ok
