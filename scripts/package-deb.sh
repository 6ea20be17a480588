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
# bundle.linux.deb.files names the release builds; --config points them at this profile's).
# Release: tauri build makes the window binary, then bundles.
# Debug: the three programs as every suite builds them (scripts/build-debug.sh: one feature
# resolution, the window with Tauri's `custom-protocol` as a release has it: src-tauri/
# Cargo.toml), and `tauri bundle` packages that build as it is. `tauri build --debug` would
# resolve the window's features alone and compile 36 crates again (about 2 minutes).
if [[ $profile == debug ]]; then
  scripts/build-debug.sh
  tauri_cmd=bundle
else
  cargo build "${build[@]}" --bin sendledger
  cargo build "${build[@]}" -p sendledger-tray --bin sendledger-tray
  tauri_cmd=build
fi
files="{\"/usr/bin/sendledger\": \"../target/$profile/sendledger\", \"/usr/bin/sendledger-tray\": \"../target/$profile/sendledger-tray\"}"
rm -f "target/$profile/bundle/deb/"*.deb
(cd src-tauri && "../$cli_dir/node_modules/.bin/tauri" "$tauri_cmd" "${tauri_build[@]}" --bundles deb --ci \
  --config "{\"bundle\": {\"linux\": {\"deb\": {\"files\": $files}}}}")
ls -l "target/$profile/bundle/deb/"*.deb
