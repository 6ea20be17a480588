#!/usr/bin/python3
"""Measures the tray app (run on demand, never asserted): time from launch to the tray item
on D-Bus, and resident memory (RSS) with the window closed. Needs a display and a session
bus, like the end-to-end suite:

    xvfb-run -a dbus-run-session -- /usr/bin/python3 e2e/app/bench.py [RUNS]

Uses SENDLEDGER_APP_BINARY (default target/debug/sendledger-app; measure a release build:
SENDLEDGER_APP_BINARY=target/release/sendledger-app). Figures go into docs/performance.md.
"""
import os
import statistics
import subprocess
import sys
import time

from harness import APP, Desktop, Profile, Tray, X, kill, wait_until

SETTLE_S = 3.0  # memory is read after the app has been idle this long


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def descendants(pid):
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True).stdout
    children = {}
    for line in out.splitlines():
        p, pp = map(int, line.split())
        children.setdefault(pp, []).append(p)
    found, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            found.append(c)
            todo.append(c)
    return found


def tree_rss_mb(pid):
    pids = [pid] + descendants(pid)
    return rss_kb(pid) / 1024, sum(rss_kb(p) for p in pids if os.path.exists(f"/proc/{p}")) / 1024, len(pids) - 1


def one_run(desktop):
    p = Profile()
    env = {**os.environ, "HOME": p.home}
    t0 = time.time()
    proc = subprocess.Popen([APP, "--profile", p.dir, "--hidden"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        rec = wait_until(lambda: [r for r in desktop.records("tray_item") if r["t"] >= t0], "the tray item")[0]
        to_tray = rec["t"] - t0
        time.sleep(SETTLE_S)  # a benchmark idles on purpose; tests never sleep
        hidden = tree_rss_mb(proc.pid)
        # Open the window from the tray, then close it as a window manager would.
        x = X()
        Tray(desktop, proc.pid).click("Open queue")
        win = wait_until(lambda: x.shown(), "the window")[0]
        time.sleep(SETTLE_S)
        shown = tree_rss_mb(proc.pid)
        x.close(win)
        wait_until(lambda: not x.shown(), "the window to close")
        time.sleep(SETTLE_S)
        closed = tree_rss_mb(proc.pid)
        return to_tray, hidden, shown, closed
    finally:
        kill(proc.pid)
        proc.wait(10)


def main(runs):
    print(f"binary: {APP}")
    results = []
    for i in range(runs):
        desktop = Desktop()
        try:
            results.append(one_run(desktop))
        finally:
            desktop.close()
        t, h, s, c = results[-1]
        print(f"run {i + 1}: launch→tray {t * 1000:.0f} ms; RSS main/with children (MB): "
              f"never opened {h[0]:.1f}/{h[1]:.1f}, window open {s[0]:.1f}/{s[1]:.1f} ({s[2]} children), "
              f"after closing {c[0]:.1f}/{c[1]:.1f} ({c[2]} children)")
    med = lambda xs: statistics.median(xs)
    print(f"median of {runs}: launch→tray {med([r[0] for r in results]) * 1000:.0f} ms; "
          f"idle RSS never opened {med([r[1][0] for r in results]):.1f} MB (with children {med([r[1][1] for r in results]):.1f}); "
          f"after closing the window {med([r[3][0] for r in results]):.1f} MB (with children {med([r[3][1] for r in results]):.1f}); "
          f"window open {med([r[2][1] for r in results]):.1f} MB with children")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
