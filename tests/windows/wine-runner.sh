#!/usr/bin/env bash
# CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER for the Windows build: runs a test .exe (or
# any .exe of the build) under Wine 8.0 in the tests' own prefix (tests/windows/
# wine-prefix.sh; $SENDLEDGER_WINEPREFIX, default target/wine-prefix).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
prefix="${SENDLEDGER_WINEPREFIX:-$here/../../target/wine-prefix}"
"$here/wine-prefix.sh" "$prefix" >/dev/null
export WINEPREFIX="$prefix" WINEDEBUG="${WINEDEBUG:--all}"
exec /usr/lib/wine/wine64 "$@"
