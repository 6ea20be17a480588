#!/usr/bin/env bash
# The tray app's suite (the tray process and the window process): lints, the window's
# commands through Tauri's IPC on the mock runtime, then the real app end to end under Xvfb and a private D-Bus session (tauri-driver +
# WebKitWebDriver for the window, D-Bus for the tray menu and notifications). With
# --deb (or in CI) it also builds the .deb (from the debug profile the tests just built:
# `scripts/package-deb.sh --debug`, the same packaging as a release), installs it with
# dpkg, runs the first end-to-end test against the installed binary and the browser suite
# against its extension folder, then starts the installed app and removes the package with
# apt-get (e2e/app/test_package.py: nothing left running, no log-in entry to a missing
# binary). It leaves the package removed.
# Installs what it needs first. Exits non-zero on failure; the last line is the total.
#   scripts/test-app.sh [--deb] [TEST-NAME-SUBSTRING ...]
set -uo pipefail
cd "$(dirname "$0")/.."
deb=0; [[ "${CI:-}" == "true" ]] && deb=1
if [[ "${1:-}" == "--deb" ]]; then deb=1; shift; fi
export PATH="$HOME/.cargo/bin:$PATH"
scripts/setup.sh --test || exit 1
if ! command -v tauri-driver >/dev/null; then
  echo "test-app: installing tauri-driver (about 40 s)"
  cargo install tauri-driver --locked --version '^2' || exit 1
fi
mkdir -p target
passed=0; failed=0; status=0
count() {
  local p f
  p=$(grep -Eo '[0-9]+ passed' "$1" | grep -Eo '[0-9]+' | paste -sd+ | bc 2>/dev/null || echo 0)
  f=$(grep -Eo '[0-9]+ failed' "$1" | grep -Eo '[0-9]+' | paste -sd+ | bc 2>/dev/null || echo 0)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
}
e2e() { # runs the end-to-end suite with a display and a session bus of its own
  xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- /usr/bin/python3 e2e/app/run.py "$@"
}

# Clippy and the build over the whole workspace, as scripts/test-all.sh's steps before this
# one: the same feature resolution, so in a full run both find everything built already.
# scripts/test-all.sh sets SENDLEDGER_LINTED: its core step built the workspace with clippy.
if [[ -z ${SENDLEDGER_LINTED:-} ]]; then
  echo "== app: clippy"
  cargo clippy --workspace --all-targets -- -D warnings || status=1
fi

echo "== app: build"
scripts/build-debug.sh || exit 1

# scripts/test-all.sh sets SENDLEDGER_APP_TESTS_RAN: its core step's `cargo test --workspace`
# ran these already, counted there.
if [[ -z ${SENDLEDGER_APP_TESTS_RAN:-} ]]; then
  echo "== app: the window's commands on the mock runtime, the tray's own tests"
  cargo test -p sendledger-app -p sendledger-tray 2>&1 | tee target/test-app-commands.log
  [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
  count target/test-app-commands.log
fi

echo "== app: end to end (screenshots in target/e2e-screenshots/app/)"
rm -rf target/e2e-screenshots/app
e2e "$@" 2>&1 | tee target/test-app-e2e.log
[[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
grep -E '^[0-9]+ passed, [0-9]+ failed$' target/test-app-e2e.log | tail -n 1 | grep . > target/test-app-e2e.count || status=1
count target/test-app-e2e.count

if [[ $deb -eq 1 ]]; then
  echo "== app: .deb built, installed with dpkg, and run"
  if scripts/package-deb.sh --debug && dpkg -i target/debug/bundle/deb/*.deb; then
    SENDLEDGER_APP_BINARY=/usr/bin/sendledger-app e2e test_rows_appear 2>&1 | tee target/test-app-deb.log
    [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
    grep -E '^[0-9]+ passed, [0-9]+ failed$' target/test-app-deb.log | tail -n 1 | grep . > target/test-app-deb.count || status=1
    count target/test-app-deb.count
    echo "== app: the installed .deb's extension folder, in Chromium (browser suite, one scenario)"
    SENDLEDGER_EXTENSION_DIR=/usr/share/sendledger/extension scripts/test-browser.sh a_send_completes_with_the_native 2>&1 | tee target/test-app-deb-extension.log
    [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
    grep -E '^[0-9]+ passed, [0-9]+ failed$' target/test-app-deb-extension.log | tail -n 1 | grep . > target/test-app-deb-extension.count || status=1
    count target/test-app-deb-extension.count
    echo "== app: the installed app started, then apt-get remove: nothing left running, no log-in entry to a missing binary"
    SENDLEDGER_APP_BINARY=/usr/bin/sendledger-app e2e test_apt_remove 2>&1 | tee target/test-app-deb-remove.log
    [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
    grep -E '^[0-9]+ passed, [0-9]+ failed$' target/test-app-deb-remove.log | tail -n 1 | grep . > target/test-app-deb-remove.count || status=1
    count target/test-app-deb-remove.count
  else
    echo "FAILED: the .deb could not be built or installed"; status=1; failed=$((failed + 1))
  fi
fi

echo
[[ $status -eq 0 && $failed -eq 0 ]] || echo "FAILED: see the sections above"
echo "$passed passed, $failed failed"
[[ $status -eq 0 && $failed -eq 0 ]]
