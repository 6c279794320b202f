#!/usr/bin/env bash
# tests/gpu/device-run.sh --unpack-only with hand-made Debian packages (dpkg-deb --build): the
# packages land under the given folder (not /), their .pc files are rewritten to point there,
# pkg-config finds the library through the printed environment, and an empty or missing
# package folder is a clear error. (The full build from the real packages takes minutes:
# docs/tracer.md gives the command, tested by hand.)
. "$(dirname "$0")/common.sh"
SRC=$(cd "$(dirname "$0")/../../.." && pwd)
pkg=$T/pkg/fakelib
mkdir -p "$pkg/DEBIAN" "$pkg/usr/include" "$pkg/usr/lib/x86_64-linux-gnu/pkgconfig"
printf 'Package: gms-fakelib-dev\nVersion: 1.0\nArchitecture: all\nMaintainer: t <t@t>\nDescription: t\n' \
  >"$pkg/DEBIAN/control"
echo '#define GMS_FAKELIB 1' >"$pkg/usr/include/gmsfake.h"
cat >"$pkg/usr/lib/x86_64-linux-gnu/pkgconfig/gmsfake.pc" <<'PC'
prefix=/usr
libdir=${prefix}/lib/x86_64-linux-gnu
includedir=${prefix}/include
Name: gmsfake
Description: t
Version: 1.0
Cflags: -I${includedir}
Libs: -L${libdir} -lgmsfake
PC
mkdir -p "$T/debs"
dpkg-deb --build "$pkg" "$T/debs/gms-fakelib-dev_1.0_all.deb" >/dev/null || fail "dpkg-deb --build"
DEPS_DIR=$T/debs run_rc "$SRC/tests/gpu/device-run.sh" --unpack-only "$T/unpacked"
[ $RC = 0 ] || fail "unpack exited $RC: $(cat "$T/cmd.stderr" "$T/cmd.stdout")"
[ -f "$T/unpacked/usr/include/gmsfake.h" ] || fail "the header was not unpacked under the folder"
grep -q "^prefix=$T/unpacked/usr\$" "$T/unpacked/usr/lib/x86_64-linux-gnu/pkgconfig/gmsfake.pc" ||
  fail ".pc prefix not rewritten: $(head -1 "$T/unpacked/usr/lib/x86_64-linux-gnu/pkgconfig/gmsfake.pc")"
envs=$(cat "$T/cmd.stdout")
cflags=$(env $envs pkg-config --cflags gmsfake | sed 's/ *$//') || fail "pkg-config cannot find the unpacked package ($envs)"
[ "$cflags" = "-I$T/unpacked/usr/include" ] || fail "cflags '$cflags'"
# nothing to unpack: a clear error, not an empty success
mkdir -p "$T/empty"
DEPS_DIR=$T/empty run_rc "$SRC/tests/gpu/device-run.sh" --unpack-only "$T/u2"
[ $RC = 1 ] || fail "empty package folder: exit $RC, want 1"
grep -q "no .deb files" "$T/cmd.stdout" || fail "empty package folder: no clear message"
echo ok
