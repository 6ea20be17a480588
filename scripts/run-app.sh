#!/usr/bin/env bash
# Sets up, builds and launches the sendledger tray app: the tray process (`sendledger-tray`,
# the owner of your profile: ledger + loopback bridge, as `sendledger serve`, with the tray
# icon) and the queue window (`sendledger-app`, its own process, gone when it closes).
#   scripts/run-app.sh [--debug] [--hidden] [--profile DIR]
# --debug builds faster (unoptimised); --hidden starts the tray without the window.
# Closing the window keeps the tray running; Quit is in the tray menu. On a desktop
# without a tray (GNOME without its AppIndicator extension) run this again to open the window.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
if [[ -z "${DISPLAY:-}" && -z "${WAYLAND_DISPLAY:-}" ]]; then
  echo "run-app: no graphical session (DISPLAY / WAYLAND_DISPLAY unset): the tray app needs one." >&2
  echo "run-app: for a headless owner run: cargo run --release --bin sendledger -- serve" >&2
  exit 1
fi
scripts/setup.sh
mode=release; flag=--release
if [[ "${1:-}" == "--debug" ]]; then mode=debug; flag=; shift; fi
# One build of all three binaries: the core library is compiled once for them.
cargo build $flag -p sendledger -p sendledger-app -p sendledger-tray \
  --bin sendledger --bin sendledger-app --bin sendledger-tray
out="${CARGO_TARGET_DIR:-target}/$mode"
echo "run-app: the CLI is $out/sendledger (put $out on your PATH to type \`sendledger\`); logs go to ~/.local/share/org.sendledger.app/logs/"
exec "$out/sendledger-app" "$@"
