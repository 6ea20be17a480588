#!/usr/bin/env bash
# The Windows installer, end to end under Wine (in the tests' own prefix):
#   1. scripts/package-windows.sh --debug, signed with a throwaway self-signed certificate
#      made here (the signing path of a release, verified by osslsigncode);
#   2. a silent install (/S /D=C:\sltest\sendledger): the files (the CLI, the tray, the
#      window and its WebView2Loader.dll, the extension), the Start-menu entries, the
#      user's PATH;
#   3. the installed CLI: --version; doctor's platform facts; a serve whose bridge takes a
#      send from this Linux side (curl with the profile's client token); the brake
#      (`sendledger stop`) commits;
#   4. the installed tray and window on a second profile: `sendledger-app --hidden` (what
#      log-in runs) starts the tray, which owns the profile (the CLI's status reaches it);
#      the window, which finds no WebView2 under Wine, says so and leaves the tray running;
#   5. the silent uninstall, with that serve and that tray still running and autostart
#      entries in HKCU\...\Run (one per profile, as the window writes them, and another
#      program's): the owner and the tray are ended first, the files, the PATH entry and
#      sendledger's autostart entries are gone, the other program's entry and the profiles
#      are kept.
# Each check prints `ok` or `FAILED`; the last line is `N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
export SENDLEDGER_WINEPREFIX="${SENDLEDGER_WINEPREFIX:-$CARGO_TARGET_DIR/wine-prefix}"
tests/windows/wine-prefix.sh "$SENDLEDGER_WINEPREFIX" >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
export WINEPREFIX="$SENDLEDGER_WINEPREFIX" WINEDEBUG=-all
wine=/usr/lib/wine/wine64
passed=0; failed=0
check() { # check NAME COMMAND...: runs COMMAND, counts it
  local name=$1; shift
  if "$@"; then echo "ok      $name"; passed=$((passed + 1)); else echo "FAILED  $name"; failed=$((failed + 1)); fi
}
finish() { echo; echo "$passed passed, $failed failed"; exit $(( failed > 0 )); }
work="$CARGO_TARGET_DIR/windows-installer"
rm -rf "$work"; mkdir -p "$work"
# The tray's icon and the window's message box need a display (without one, Wine cannot
# create the icon's window: "Invalid window handle"): a private Xvfb, and Wine (its
# server and services) started again on it, with no pipe to hold open.
/usr/lib/wine/wineserver -k 2>/dev/null
Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp 3>"$work/display" >/dev/null 2>&1 &
xvfb=$!
trap '/usr/lib/wine/wineserver -k 2>/dev/null; kill $xvfb 2>/dev/null' EXIT
for _ in $(seq 100); do [[ -s "$work/display" ]] && break; sleep 0.1; done
export DISPLAY=":$(cat "$work/display")"
"$wine" wineboot </dev/null >/dev/null 2>&1
drive_c="$WINEPREFIX/drive_c"
inst_win='C:\sltest\sendledger'; inst="$drive_c/sltest/sendledger"
prof_win='C:\sltest\profile'; prof="$drive_c/sltest/profile"
tray_prof_win='C:\sltest\tray-profile'; tray_prof="$drive_c/sltest/tray-profile"
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
check "the tray (sendledger-tray.exe) is installed" test -f "$inst/sendledger-tray.exe"
check "the window (sendledger-app.exe) is installed with the WebView2Loader.dll it imports" \
  test -f "$inst/sendledger-app.exe" -a -f "$inst/WebView2Loader.dll"
check "the installed tray and window are signed" bash -c "osslsigncode verify -CAfile '$work/cert.pem' -in '$inst/sendledger-tray.exe' >/dev/null && osslsigncode verify -CAfile '$work/cert.pem' -in '$inst/sendledger-app.exe' >/dev/null"
check "the installed sendledger.exe is signed" osslsigncode verify -CAfile "$work/cert.pem" -in "$inst/sendledger.exe"
check "the extension folder is installed" test -f "$inst/extension/manifest.json"
check "the uninstaller is installed" test -f "$inst/uninstall.exe"
menu=$(find "$drive_c/users" -path '*Start Menu/Programs/sendledger' -type d | head -n 1)
check "the Start menu has sendledger's entries" bash -c "ls '$menu'/*.lnk >/dev/null 2>&1"
lnk_names() { { strings "$1"; strings -el "$1"; } 2>/dev/null; }
check "the Start menu's sendledger entry opens the queue window" \
  bash -c "grep -q 'sendledger-app.exe' <<<\"\$(cat)\"" <<<"$(lnk_names "$menu/sendledger.lnk")"
path_reg() { "$wine" reg query 'HKCU\Environment' /v Path 2>/dev/null | tr -d '\r'; }
check "the user's PATH names the install folder" bash -c "grep -qF '$inst_win' <<<\"\$(cat)\"" <<<"$(path_reg)"

# 3. The installed CLI.
exe="$inst_win\\sendledger.exe"
check "sendledger --version answers" bash -c "'$wine' '$exe' --version | tr -d '\r' | grep -qx 'sendledger [0-9.]*'"
"$wine" "$exe" --profile "$prof_win" doctor > "$work/doctor.out" 2>&1
check "sendledger doctor prints the platform facts (Windows, the lock, privacy, shutdown)" \
  bash -c "grep -q '^platform: Windows (x86_64)' '$work/doctor.out' && grep -q '^owner lock: ' '$work/doctor.out' && grep -q '^private files: ' '$work/doctor.out' && grep -q '^shutdown on: Ctrl-C' '$work/doctor.out'"
"$wine" "$exe" --profile "$prof_win" serve --port 0 > "$work/serve.out" 2> "$work/serve.err" &
serve=$!
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

# 4. The installed tray and window.
app="$inst_win\\sendledger-app.exe"
# Wine 8's tasklist lists nothing: a Windows process is a Linux one whose command line is
# its Windows path (the installed folder's, so other tests' processes do not count).
runs() { pgrep -f -- "sltest.sendledger.$1" >/dev/null; }
mkdir -p "$tray_prof"  # its bridge on a free port, not the default another owner may hold
port2=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
echo "{\"port\": $port2}" > "$tray_prof/config.json"
timeout 120 "$wine" "$app" --profile "$tray_prof_win" --hidden > "$work/hidden.out" 2> "$work/hidden.err"
rc=$?
check "sendledger-app --hidden (what log-in runs) starts the tray and exits 0 (exit $rc)" test $rc -eq 0
check "the tray runs (sendledger-tray.exe)" runs sendledger-tray.exe
timeout 60 "$wine" "$exe" --profile "$tray_prof_win" status > "$work/tray-status.out" 2>&1
check "the tray owns its profile: the installed CLI's status reaches its bridge" \
  bash -c "[[ -f '$tray_prof/bridge.json' ]] && grep -q '^owner .*sendledger-tray.exe' '$work/tray-status.out'"
timeout 120 "$wine" "$app" --profile "$tray_prof_win" > "$work/window.out" 2> "$work/window.err" </dev/null &
window=$!
/usr/bin/python3 tests/windows/press_ok.py sendledger > "$work/press_ok.out" 2>&1
box=$?
wait $window
rc=$?
check "a_window_without_webview2_says_so_and_leaves_the_tray_running: a message box titled sendledger (OK pressed), the sentence on stderr, exit 4 (Wine has no WebView2; exit $rc)" \
  bash -c "[[ $box == 0 && $rc == 4 ]] && grep -q 'cannot open its queue window' '$work/window.err' && grep -q 'Install the WebView2 Runtime' '$work/window.err'"
check "the tray still runs after the window could not open" runs sendledger-tray.exe

# 5. Silent uninstall with the owner and the tray running and autostart entries.
run_key='HKCU\Software\Microsoft\Windows\CurrentVersion\Run'
# As the window writes them (src-tauri/src/autostart.rs): the program's path in quotes.
"$wine" reg add "$run_key" /v sendledger /d "\"$app\" --hidden" /f >/dev/null 2>&1
"$wine" reg add "$run_key" /v sendledger-0123456789abcdef /d "\"$app\" --hidden --profile=$tray_prof_win" /f >/dev/null 2>&1
"$wine" reg add "$run_key" /v other-app /d 'C:\other\other-app.exe' /f >/dev/null 2>&1
check "before the uninstall, the serve still runs" runs sendledger.exe
"$wine" "$inst_win\\uninstall.exe" /S
for _ in $(seq 300); do [[ -e "$inst" ]] || break; sleep 0.1; done  # it runs from a copy: no wait
check "the uninstaller removed the install folder (the running owner was ended first)" test ! -e "$inst"
not_running() { ! runs "$1"; }
check "the serve process has ended" not_running sendledger.exe
check "the tray has ended" not_running sendledger-tray.exe
in_run() { "$wine" reg query "$run_key" /v "$1" >/dev/null 2>&1; }
not_in_run() { ! in_run "$1"; }
check "the default profile's autostart entry is removed" not_in_run sendledger
check "another profile's autostart entry is removed" not_in_run sendledger-0123456789abcdef
check "another program's autostart entry is kept" in_run other-app
"$wine" reg delete "$run_key" /v other-app /f >/dev/null 2>&1
check "the user's PATH no longer names the install folder" bash -c "! grep -qF '$inst_win' <<<\"\$(cat)\"" <<<"$(path_reg)"
check "the Start menu entries are removed" test ! -e "$menu"
check "the profiles (the ledgers) are kept" test -f "$prof/ledger.sqlite3" -a -f "$tray_prof/ledger.sqlite3"
wait "$serve" 2>/dev/null  # not Xvfb, which runs until the trap
finish
