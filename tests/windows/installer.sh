#!/usr/bin/env bash
# The Windows installer, end to end under Wine (in the tests' own prefix):
#   1. scripts/package-windows.sh --debug, signed with a throwaway self-signed certificate
#      made here (the signing path of a release, verified by osslsigncode);
#   2. a silent install (/S /D=C:\sltest\sendledger): the files, the Start-menu entries,
#      the user's PATH;
#   3. the installed CLI: --version; a serve whose bridge takes a send from this Linux
#      side (curl with the profile's client token); the brake (`sendledger stop`) commits;
#   4. the silent uninstall, with that serve still running and an autostart entry in
#      HKCU\...\Run: the owner is ended first, the files, the PATH entry and the autostart
#      entry are gone, the profile is kept.
# Each check prints `ok` or `FAILED`; the last line is `N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
export SENDLEDGER_WINEPREFIX="${SENDLEDGER_WINEPREFIX:-$CARGO_TARGET_DIR/wine-prefix}"
tests/windows/wine-prefix.sh "$SENDLEDGER_WINEPREFIX" >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
export WINEPREFIX="$SENDLEDGER_WINEPREFIX" WINEDEBUG=-all
wine=/usr/lib/wine/wine64
# Wine's own services, started with no pipe to hold open (they outlive every .exe).
"$wine" wineboot </dev/null >/dev/null 2>&1
passed=0; failed=0
check() { # check NAME COMMAND...: runs COMMAND, counts it
  local name=$1; shift
  if "$@"; then echo "ok      $name"; passed=$((passed + 1)); else echo "FAILED  $name"; failed=$((failed + 1)); fi
}
finish() { echo; echo "$passed passed, $failed failed"; exit $(( failed > 0 )); }
work="$CARGO_TARGET_DIR/windows-installer"
rm -rf "$work"; mkdir -p "$work"
drive_c="$WINEPREFIX/drive_c"
inst_win='C:\sltest\sendledger'; inst="$drive_c/sltest/sendledger"
prof_win='C:\sltest\profile'; prof="$drive_c/sltest/profile"
rm -rf "$drive_c/sltest"

# 1. Build and sign.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=sendledger throwaway test signer" \
  -addext "extendedKeyUsage=codeSigning" -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null
installer=$(SENDLEDGER_SIGN_CERT="$work/cert.pem" SENDLEDGER_SIGN_KEY="$work/key.pem" \
  scripts/package-windows.sh --debug | tail -n 1)
check "the installer is built: $installer" test -f "$installer"
[[ -f "$installer" ]] || finish
check "the installer's signature verifies against the throwaway certificate" \
  osslsigncode verify -CAfile "$work/cert.pem" -in "$installer"
check "an unsigned copy does not verify (the check can fail)" \
  bash -c "osslsigncode remove-signature -in '$installer' -out '$work/unsigned.exe' >/dev/null && ! osslsigncode verify -CAfile '$work/cert.pem' -in '$work/unsigned.exe' >/dev/null 2>&1"

# 2. Silent install.
"$wine" "$installer" /S "/D=$inst_win"
check "sendledger.exe is installed" test -f "$inst/sendledger.exe"
check "the installed sendledger.exe is signed" osslsigncode verify -CAfile "$work/cert.pem" -in "$inst/sendledger.exe"
check "the extension folder is installed" test -f "$inst/extension/manifest.json"
check "the uninstaller is installed" test -f "$inst/uninstall.exe"
menu=$(find "$drive_c/users" -path '*Start Menu/Programs/sendledger' -type d | head -n 1)
check "the Start menu has sendledger's entries" bash -c "ls '$menu'/*.lnk >/dev/null 2>&1"
path_reg() { "$wine" reg query 'HKCU\Environment' /v Path 2>/dev/null | tr -d '\r'; }
check "the user's PATH names the install folder" bash -c "grep -qF '$inst_win' <<<\"\$(cat)\"" <<<"$(path_reg)"

# 3. The installed CLI.
exe="$inst_win\\sendledger.exe"
check "sendledger --version answers" bash -c "'$wine' '$exe' --version | tr -d '\r' | grep -qx 'sendledger [0-9.]*'"
"$wine" "$exe" --profile "$prof_win" serve --port 0 > "$work/serve.out" 2> "$work/serve.err" &
for _ in $(seq 300); do grep -q '^port ' "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
port=$(grep -m1 '^port ' "$work/serve.out" | tr -d '\r' | cut -d' ' -f2)
check "the installed serve listens (port ${port:-none})" test -n "$port"
if [[ -n "$port" ]]; then
  token=$(cat "$prof/client.token")
  code=$(curl -s -o "$work/send.json" -w '%{http_code}' -X POST "http://127.0.0.1:$port/v1/sends" \
    -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d '{"op_id": "from-linux-1", "text": "hello from the Linux side"}')
  check "a send from the Linux side is queued by the Windows owner (HTTP $code)" \
    bash -c "[[ $code == 201 ]] && grep -q '\"state\":\"queued\"' '$work/send.json'"
  "$wine" "$exe" --profile "$prof_win" stop > "$work/stop.out" 2>&1
  check "sendledger stop commits (exit 0)" test $? -eq 0
  curl -s "http://127.0.0.1:$port/v1/sends/from-linux-1" -H "Authorization: Bearer $token" > "$work/after.json"
  check "after stop the send is stopped, never to be clicked" grep -q '"state":"stopped"' "$work/after.json"
fi

# 4. Silent uninstall with the owner running and an autostart entry.
"$wine" reg add 'HKCU\Software\Microsoft\Windows\CurrentVersion\Run' /v sendledger /d "$exe" /f >/dev/null 2>&1
"$wine" "$inst_win\\uninstall.exe" /S
for _ in $(seq 300); do [[ -e "$inst" ]] || break; sleep 0.1; done  # it runs from a copy: no wait
check "the uninstaller removed the install folder (the running owner was ended first)" test ! -e "$inst"
check "the serve process has ended" bash -c "! '$wine' tasklist 2>/dev/null | grep -qi '^sendledger.exe'"
check "the autostart entry is removed" bash -c "! '$wine' reg query 'HKCU\Software\Microsoft\Windows\CurrentVersion\Run' /v sendledger >/dev/null 2>&1"
check "the user's PATH no longer names the install folder" bash -c "! grep -qF '$inst_win' <<<\"\$(cat)\"" <<<"$(path_reg)"
check "the Start menu entries are removed" test ! -e "$menu"
check "the profile (the ledger) is kept" test -f "$prof/ledger.sqlite3"
wait
finish
