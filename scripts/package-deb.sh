#!/usr/bin/env bash
# Builds the Debian package of the tray app (the window `sendledger-app`, the tray process
# `sendledger-tray` and the `sendledger` CLI) using the
# Tauri CLI from npm (@tauri-apps/cli v2 ships a prebuilt binary; nothing is compiled for it).
#   scripts/package-deb.sh      → target/release/bundle/deb/sendledger_<version>_<arch>.deb
# Install it with: sudo dpkg -i target/release/bundle/deb/*.deb  (or apt install ./that.deb)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
scripts/setup.sh
command -v npm >/dev/null || { echo "package-deb: npm is needed (apt install npm)" >&2; exit 1; }

cli_dir=target/tauri-cli
if [[ ! -x $cli_dir/node_modules/.bin/tauri ]]; then
  mkdir -p "$cli_dir"
  npm install --prefix "$cli_dir" --no-audit --no-fund --loglevel=error '@tauri-apps/cli@2'
fi

# The CLI and the tray process go into the package too (tauri.conf.json:
# bundle.linux.deb.files); tauri build makes the window binary.
cargo build --release --bin sendledger
cargo build --release -p sendledger-tray --bin sendledger-tray
rm -f target/release/bundle/deb/*.deb
(cd src-tauri && "../$cli_dir/node_modules/.bin/tauri" build --bundles deb --ci)
ls -l target/release/bundle/deb/*.deb
