#!/usr/bin/env bash
# Builds the Debian package of the tray app (the window `sendledger-app`, the tray process
# `sendledger-tray` and the `sendledger` CLI) using the
# Tauri CLI from npm (@tauri-apps/cli v2 ships a prebuilt binary; nothing is compiled for it).
#   scripts/package-deb.sh          → target/release/bundle/deb/sendledger_<version>_<arch>.deb
#   scripts/package-deb.sh --debug  → target/debug/bundle/deb/…: the same package from the
#                                     debug profile, which the test builds have mostly
#                                     compiled already (what CI installs and runs; minutes
#                                     instead of a cold release build)
# Install it with: sudo dpkg -i target/release/bundle/deb/*.deb  (or apt install ./that.deb)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
profile=release; build=(--release); tauri_build=()
if [[ "${1:-}" == "--debug" ]]; then profile=debug; build=(); tauri_build=(--debug); fi
scripts/setup.sh
command -v npm >/dev/null || { echo "package-deb: npm is needed (apt install npm)" >&2; exit 1; }

cli_dir=target/tauri-cli
if [[ ! -x $cli_dir/node_modules/.bin/tauri ]]; then
  mkdir -p "$cli_dir"
  npm install --prefix "$cli_dir" --no-audit --no-fund --loglevel=error '@tauri-apps/cli@2'
fi

# The CLI and the tray process go into the package too (tauri.conf.json:
# bundle.linux.deb.files names the release builds; --config points them at this profile's);
# tauri build makes the window binary.
# The debug ones as every suite builds them (scripts/build-debug.sh: one feature resolution).
if [[ $profile == debug ]]; then
  scripts/build-debug.sh
else
  cargo build "${build[@]}" --bin sendledger
  cargo build "${build[@]}" -p sendledger-tray --bin sendledger-tray
fi
files="{\"/usr/bin/sendledger\": \"../target/$profile/sendledger\", \"/usr/bin/sendledger-tray\": \"../target/$profile/sendledger-tray\"}"
rm -f "target/$profile/bundle/deb/"*.deb
(cd src-tauri && "../$cli_dir/node_modules/.bin/tauri" build "${tauri_build[@]}" --bundles deb --ci \
  --config "{\"bundle\": {\"linux\": {\"deb\": {\"files\": $files}}}}")
ls -l "target/$profile/bundle/deb/"*.deb
