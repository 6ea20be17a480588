#!/bin/sh
# The .deb's pre-removal script (tauri.conf.json: bundle.linux.deb.preRemoveScript). Before
# the package's files go, on remove or purge (not on an upgrade):
# - every tray and window the package started is asked to quit (SIGTERM: the tray shuts its
#   owner down cleanly — bridge.json removed, the profile released — and its windows close
#   with it), and whatever is still running 5 s later is ended (SIGKILL: the ledger is safe
#   against it, recovery runs at the next start);
# - every log-in entry that starts the package's window is removed, for every user
#   (~/.config/autostart/sendledger*.desktop whose Exec is the package's binary), so no
#   log-in tries a binary that is gone.
# SENDLEDGER_BIN_DIR and SENDLEDGER_HOMES exist for the script's own test
# (tests/packaging_prerm.sh); the package uses /usr/bin and every home directory.
set -u
case "${1:-remove}" in
  remove|purge|deconfigure) ;;
  *) exit 0 ;;
esac
bin_dir="${SENDLEDGER_BIN_DIR:-/usr/bin}"
homes="${SENDLEDGER_HOMES:-/root /home/*}"

ours() { # the pids whose executable is the package's tray or window
  for exe in /proc/[0-9]*/exe; do
    target=$(readlink "$exe" 2>/dev/null) || continue
    case "$target" in
      "$bin_dir/sendledger-tray"|"$bin_dir/sendledger-app"|"$bin_dir/sendledger-tray (deleted)"|"$bin_dir/sendledger-app (deleted)")
        pid=${exe#/proc/}; echo "${pid%/exe}" ;;
    esac
  done
}

pids=$(ours)
if [ -n "$pids" ]; then
  kill -TERM $pids 2>/dev/null || true
  i=0
  while [ $i -lt 10 ] && [ -n "$(ours)" ]; do sleep 0.5; i=$((i + 1)); done
  left=$(ours)
  [ -n "$left" ] && kill -KILL $left 2>/dev/null || true
fi

for home in $homes; do
  for entry in "$home"/.config/autostart/sendledger*.desktop; do
    [ -f "$entry" ] || continue
    if grep -q "^Exec=$bin_dir/sendledger-app" "$entry"; then
      rm -f "$entry"
    fi
  done
done
exit 0
