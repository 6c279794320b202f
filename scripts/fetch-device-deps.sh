#!/usr/bin/env bash
# Downloads the Debian packages a GPU machine needs to build gpumemsim, for machines without a
# package registry (the lent GPU machines): the -dev packages of libzstd, jansson, sqlite3 and
# their runtime libraries, check (unit tests), pkg-config, and cmake with the libraries it needs.
# tests/gpu/device-run.sh unpacks them into a private folder there (never into /).
#
#   scripts/fetch-device-deps.sh [DIR]     (default: .deps, ignored by git)
#
# Uses `apt-get download` (no root needed, nothing is installed here); run `apt-get update`
# first if the package lists are missing. Exit status 1 when a package cannot be downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-.deps}
case "${1:-}" in -h|--help) sed -n '2,10p' "$0"; exit 0 ;; esac

packages=(
  libzstd-dev libzstd1                  # .gmt frames
  libjansson-dev libjansson4            # DTR JSON logs
  libsqlite3-dev libsqlite3-0           # results store
  check libsubunit-dev libsubunit0      # unit tests, so the tracer's CTest cases run there too
  pkgconf pkgconf-bin libpkgconf3 pkg-config
  cmake cmake-data libarchive13 libcurl4 libjsoncpp25 librhash0 libuv1 libexpat1
  libnghttp2-14 librtmp1 libssh2-1 libpsl5 libbrotli1 libldap-2.5-0 libsasl2-2 libsasl2-modules-db
  libacl1 liblz4-1 liblzma5 libxml2 libicu72 libbz2-1.0 libgssapi-krb5-2 libkrb5-3 libk5crypto3
  libkrb5support0 libkeyutils1 libcom-err2 libgnutls30 libidn2-0 libunistring2 libnettle8
  libhogweed6 libgmp10 libtasn1-6 libp11-kit0 libffi8
)
command -v apt-get >/dev/null || { echo "fetch-device-deps: apt-get not found (Debian/Ubuntu only)" >&2; exit 1; }
mkdir -p "$dir"
cd "$dir"
failed=()
for p in "${packages[@]}"; do
  ls "${p}"_*.deb >/dev/null 2>&1 && continue   # already here
  apt-get download -qq "$p" >/dev/null 2>&1 || failed+=("$p")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fetch-device-deps: cannot download: ${failed[*]} (run apt-get update, check the names)" >&2
  exit 1
fi
echo "fetch-device-deps: $(ls ./*.deb | wc -l) packages, $(du -sh . | cut -f1) in $(pwd)"
