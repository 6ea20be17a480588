#!/usr/bin/env bash
# Builds sendledger's per-user Windows installer on this Linux machine: the binaries for
# x86_64-pc-windows-gnu (mingw-w64 links), staged with the browser extension and a
# README, packed by NSIS (packaging/windows/sendledger.nsi; no administrator rights,
# installs to %LOCALAPPDATA%\Programs\sendledger, puts sendledger.exe on the user's PATH).
#   scripts/package-windows.sh            release build
#   scripts/package-windows.sh --debug    the debug build (what the Windows tests built)
#   --with-tray                           also ship sendledger-tray.exe and sendledger-app.exe
#                                         (built for Windows first; see the README)
# Signing: when SENDLEDGER_SIGN_CERT (a PEM certificate, or a chain) and
# SENDLEDGER_SIGN_KEY (its PEM private key) are set, every .exe, the uninstaller and the
# installer are signed with osslsigncode (SHA-256) and the installer's signature verified
# (SENDLEDGER_SIGN_CA: the CA file to verify against; default the certificate itself).
# The last line printed is the installer's path.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
target=x86_64-pc-windows-gnu
profile=release; build=(--release); with_tray=0
for a in "$@"; do
  case $a in
    --debug) profile=debug; build=() ;;
    --with-tray) with_tray=1 ;;
    *) echo "package-windows: unknown argument $a (use --debug, --with-tray)" >&2; exit 2 ;;
  esac
done
for tool in makensis x86_64-w64-mingw32-gcc; do
  command -v $tool >/dev/null || { echo "package-windows: $tool missing: run scripts/setup.sh --test" >&2; exit 1; }
done
rustup target list --installed 2>/dev/null | grep -qx "$target" || rustup target add "$target"

cargo build "${build[@]}" --target "$target" -p sendledger --bin sendledger >&2
bins=(sendledger)
if [[ $with_tray -eq 1 ]]; then
  cargo build "${build[@]}" --target "$target" -p sendledger-tray --bin sendledger-tray >&2
  cargo build "${build[@]}" --target "$target" -p sendledger-app --bin sendledger-app >&2
  bins+=(sendledger-tray sendledger-app)
fi

version=$(grep -m1 '^version' Cargo.toml | cut -d'"' -f2)
out="$CARGO_TARGET_DIR/$target/$profile"
stage="$out/installer-stage"
rm -rf "$stage"; mkdir -p "$stage"
for b in "${bins[@]}"; do cp "$out/$b.exe" "$stage/"; done
cp -r extension "$stage/extension"
sed 's/$/\r/' packaging/windows/README.txt > "$stage/README.txt"

sign=()
if [[ -n "${SENDLEDGER_SIGN_CERT:-}" ]]; then
  : "${SENDLEDGER_SIGN_KEY:?SENDLEDGER_SIGN_CERT is set: set SENDLEDGER_SIGN_KEY to its private key too}"
  command -v osslsigncode >/dev/null || { echo "package-windows: osslsigncode missing (apt install osslsigncode)" >&2; exit 1; }
  signer="$PWD/packaging/windows/sign.sh"
  for b in "${bins[@]}"; do "$signer" "$stage/$b.exe" >&2; done
  sign=("-DSIGN_CMD=$signer")
fi

installer="$out/sendledger-$version-setup.exe"
rm -f "$installer"
tray=(); [[ $with_tray -eq 1 ]] && tray=(-DWITH_TRAY)
makensis -V2 -DVERSION="$version" -DSTAGE="$stage" -DOUTFILE="$installer" "${tray[@]}" "${sign[@]}" \
  packaging/windows/sendledger.nsi >&2
if [[ -n "${SENDLEDGER_SIGN_CERT:-}" ]]; then
  packaging/windows/sign.sh "$installer" >&2
  osslsigncode verify -CAfile "${SENDLEDGER_SIGN_CA:-$SENDLEDGER_SIGN_CERT}" -in "$installer" >&2
fi
echo "$installer"
