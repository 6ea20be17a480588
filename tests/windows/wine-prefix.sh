#!/usr/bin/env bash
# Makes the tests' own Wine prefix (never ~/.wine): created once (about 10 s), with the
# ProcessPrng shim (tests/windows/bcryptprimitives.c, a test fixture) built by mingw
# into its system32, so every Rust .exe of the build runs under Wine 8.0.
#   tests/windows/wine-prefix.sh PREFIX     prints PREFIX when ready
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
prefix="${1:?usage: wine-prefix.sh PREFIX}"
wine=/usr/lib/wine/wine64
mkdir -p "$prefix"
export WINEPREFIX="$prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
if [[ ! -f "$prefix/system.reg" ]]; then
  "$wine" wineboot --init >/dev/null 2>&1
  /usr/lib/wine/wineserver -w
fi
sys32="$prefix/drive_c/windows/system32"
dll="$sys32/bcryptprimitives.dll"
if [[ ! -f "$dll" || "$here/bcryptprimitives.c" -nt "$dll" ]]; then
  x86_64-w64-mingw32-gcc -O2 -shared -o "$dll" "$here/bcryptprimitives.c" -ladvapi32
fi
echo "$prefix"
