#!/usr/bin/env bash
# Builds sendledger's per-user Windows installer on this Linux machine: the binaries for
# x86_64-pc-windows-gnu (mingw-w64 links) — sendledger.exe (the CLI), sendledger-tray.exe
# (the tray: the profile's owner), sendledger-app.exe (the queue window) with the
# WebView2Loader.dll it imports — staged with the browser extension and a README, packed by NSIS (packaging/windows/sendledger.nsi; no administrator rights,
# installs to %LOCALAPPDATA%\Programs\sendledger, puts sendledger.exe on the user's PATH).
#   scripts/package-windows.sh            release build
#   scripts/package-windows.sh --debug    the debug build (what the Windows tests built)
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
profile=release; build=(--release)
for a in "$@"; do
  case $a in
    --debug) profile=debug; build=() ;;
    *) echo "package-windows: unknown argument $a (use --debug)" >&2; exit 2 ;;
  esac
done
for tool in makensis x86_64-w64-mingw32-gcc x86_64-w64-mingw32-strip; do
  command -v $tool >/dev/null || { echo "package-windows: $tool missing: run scripts/setup.sh --test" >&2; exit 1; }
done
rustup target list --installed 2>/dev/null | grep -qx "$target" || rustup target add "$target"

cargo build "${build[@]}" --target "$target" -p sendledger --bin sendledger \
  -p sendledger-tray --bin sendledger-tray -p sendledger-app --bin sendledger-app >&2
bins=(sendledger sendledger-tray sendledger-app)

version=$(grep -m1 '^version' Cargo.toml | cut -d'"' -f2)
out="$CARGO_TARGET_DIR/$target/$profile"
stage="$out/installer-stage"
rm -rf "$stage"; mkdir -p "$stage"
# Staged without symbols (mingw-w64's strip): a debug build's window is 170 MB with them.
for b in "${bins[@]}"; do x86_64-w64-mingw32-strip -o "$stage/$b.exe" "$out/$b.exe"; done
# The window imports WebView2Loader.dll (webview2-com-sys links it by name for the gnu
# target; tauri-build copies the crate's vendored x64 copy beside the binaries).
cp "$out/WebView2Loader.dll" "$stage/"
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
makensis -V2 -DVERSION="$version" -DSTAGE="$stage" -DOUTFILE="$installer" "${sign[@]}" \
  packaging/windows/sendledger.nsi >&2
if [[ -n "${SENDLEDGER_SIGN_CERT:-}" ]]; then
  packaging/windows/sign.sh "$installer" >&2
  osslsigncode verify -CAfile "${SENDLEDGER_SIGN_CA:-$SENDLEDGER_SIGN_CERT}" -in "$installer" >&2
fi
echo "$installer"
