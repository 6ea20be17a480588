"""The installed .deb end to end (issue 25): installed with dpkg by scripts/test-app.sh
--deb, the app started from /usr/bin as a person would (its window, its tray, a log-in entry
switched on in Settings), then `apt-get remove`: nothing of the package is left running and
no log-in entry points at a binary that is gone. Runs only against the installed package
(SENDLEDGER_APP_BINARY=/usr/bin/sendledger-app), as root, and removes it."""
import os
import shutil
import subprocess

from harness import APP, App, Profile, wait_until

PACKAGE = "sendledger"
BIN_DIR = "/usr/bin"
OURS = ("sendledger-app", "sendledger-tray")


def package_pids():
    """Pids whose executable is the package's window or tray (also once deleted)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            exe = os.readlink(f"/proc/{pid}/exe")
        except OSError:
            continue
        if exe.removesuffix(" (deleted)") in (os.path.join(BIN_DIR, n) for n in OURS):
            found.append(int(pid))
    return found


def log_in_entries_pointing_nowhere():
    """Every autostart entry in a home the package's removal covers whose Exec names a
    binary that does not exist."""
    bad = []
    homes = ["/root"] + [os.path.join("/home", h) for h in os.listdir("/home")]
    for home in homes:
        folder = os.path.join(home, ".config", "autostart")
        if not os.path.isdir(folder):
            continue
        for name in os.listdir(folder):
            with open(os.path.join(folder, name), errors="replace") as f:
                for line in f:
                    if line.startswith("Exec="):
                        exe = line[5:].split()[0] if line[5:].split() else ""
                        if exe.startswith("/") and not os.path.exists(exe):
                            bad.append(os.path.join(folder, name))
    return bad


def test_apt_remove_of_the_installed_package_leaves_nothing_running_and_no_log_in_entry(desktop):
    assert APP == os.path.join(BIN_DIR, "sendledger-app"), \
        "run against the installed package: scripts/test-app.sh --deb"
    assert os.geteuid() == 0, "apt-get remove needs root (CI runs as root)"
    p = Profile(home_in="/home")
    app = App(p)
    try:
        app.click("#open-settings")
        app.wait_js("return document.querySelector('#settings-dialog').open", "the settings dialog")
        app.click("#settings-form input[name=autostart]")
        app.click("#settings-form button[value=save]")
        folder = os.path.join(p.home, ".config", "autostart")
        entry = wait_until(lambda: [os.path.join(folder, n) for n in os.listdir(folder)], "the log-in entry")[0]
        assert f"Exec={BIN_DIR}/sendledger-app" in open(entry).read(), "the entry starts the installed window"
        p.cli("send", "Queued before the package was removed", "--id", "pkg-1")
        running = package_pids()
        assert app.pid in running and len(running) >= 2, f"the installed tray and window run: {running}"
        out = subprocess.run(["apt-get", "remove", "-y", PACKAGE], capture_output=True, text=True, timeout=120,
                             env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
        assert out.returncode == 0, out.stdout + out.stderr
        assert not os.path.exists(APP), "the package's files are gone"
        assert package_pids() == [], f"nothing of the package runs: {package_pids()}"
        assert not os.path.exists(os.path.join(p.dir, "bridge.json")), "the tray quit cleanly (SIGTERM)"
        assert not os.path.exists(entry), "the profile's log-in entry is gone"
        assert log_in_entries_pointing_nowhere() == [], "no log-in entry points at a missing binary"
        assert p.show("pkg-1")["send"]["op_id"] == "pkg-1", "the ledger stays, with its sends"
    finally:
        app.close()
        shutil.rmtree(p.home, ignore_errors=True)


TESTS = [
    test_apt_remove_of_the_installed_package_leaves_nothing_running_and_no_log_in_entry,
]
