#!/usr/bin/env bash
# Installs what sendledger needs on a fresh Debian/Ubuntu machine (apt, with sudo when
# not root). Idempotent: packages already present are skipped.
#   scripts/setup.sh          build + run dependencies (core, tray app)
#   scripts/setup.sh --test   also what the test suites need (Xvfb, D-Bus, Chromium, drivers)
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(build-essential pkg-config libssl-dev curl ca-certificates
      libwebkit2gtk-4.1-dev libayatana-appindicator3-dev librsvg2-dev libxdo-dev)
if [[ "${1:-}" == "--test" ]]; then
  pkgs+=(xvfb xauth webkit2gtk-driver dbus dbus-x11 at-spi2-core python3-dbus python3-gi python3-xlib
         trayer imagemagick  # the app suite: a real system tray, screenshots of the screen
         chromium sqlite3 bc openssl
         libfaketime  # tests/bridge_clock_jump.rs: the real owner's wall clock set forward and back
         openssh-server openssh-client  # tests/tunnel.rs, the MCP and openai suites: a real sshd on loopback (issue 38)
         python3-venv  # the MCP and openai suites: venvs for the official SDKs (pip, pinned)
         fonts-noto-color-emoji fonts-noto-cjk  # screenshots show emoji, CJK: no tofu
         gcc-mingw-w64-x86-64 lld wine64 nsis osslsigncode)  # the Windows suite: link (lld), run, package, sign
  # Node.js and npm for the browser suite: any recent install will do (Debian's, or another).
  command -v npm >/dev/null || pkgs+=(nodejs npm)
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v cargo >/dev/null; then
  echo "setup: cargo not found: install Rust (https://rustup.rs) and run this again" >&2
  exit 1
fi
if [[ "${1:-}" == "--test" ]] && command -v rustup >/dev/null \
   && ! rustup target list --installed | grep -qx x86_64-pc-windows-gnu; then
  echo "setup: adding the Rust target x86_64-pc-windows-gnu (the Windows suite)"
  rustup target add x86_64-pc-windows-gnu
fi
