#!/usr/bin/python3
"""Measures the tray app and `sendledger serve` (run on demand, never asserted), on both
desktops in one run — with a StatusNotifier host (the fake desktop's tray host) and
without one (a bare X display: the indicator falls back to XEmbed). The app is two
processes: the tray (`sendledger-tray`, the owner) and the window (`sendledger-app`, while
its window is open); `sendledger-app --hidden` (what autostart runs) starts the tray and
leaves.

- launch → tray: from `Popen` of `sendledger-app --hidden` to the tray item registering
  with the tray host (with a host), or to the launcher leaving once the tray said `ready`
  (without one: there is nothing to register with);
- idle RSS summed over every process of the app (the tray, the window process when one
  runs, and all their descendants: WebKit's web and network processes), window never
  opened, open, and after it was closed (WM_DELETE_WINDOW);
- window open → first paint: from the click on the tray menu's "Open queue" to the first
  frame of the window that is not blank, and to the first frame equal to the settled one
  (the queue as it stays). The menu is opened as a person does, and "Open queue" chosen
  MENU_DWELL_S later (reading the menu; the tray prepares the window meanwhile): with a
  host over dbusmenu as the host does it (AboutToShow, "opened", the click, "closed"), and
  once more with the click the instant the menu opens; without one in a real XEmbed tray
  (trayer), a right click on the icon, then Down and Return;
- the window's memory (issue 39): PSS (`/proc/PID/smaps_rollup`: shared pages divided
  among the processes that map them, so a library WebKit's processes share counts once)
  summed over the tray, the window and WebKit's processes, each split into anonymous
  memory (heaps: the JS heap, the DOM, decoded images, WebKit's caches) and file-backed
  (libraries, fonts) — with the window open on an empty queue, on 1000 of history (the
  first page of History shown), on 300 pending and 1000 of history, and after the End key
  scrolled that window to its bottom (`e2e/app/memory.py`); with open → queue painted for each (the window's rows
  cost = the difference between two of these);
- idle wake-ups: voluntary context switches summed over every thread of every process of
  the app over IDLE_S seconds with nothing queued and nothing in flight (window never
  opened, and after it was closed), and the same for `sendledger serve`.

Needs a display and a session bus, like the end-to-end suite:

    xvfb-run -a -s "-screen 0 1280x800x24" dbus-run-session -- /usr/bin/python3 e2e/app/bench.py [RUNS]
    ... e2e/app/bench.py memory [RUNS]    (the window's memory only)

SENDLEDGER_APP_BINARY (default target/debug/sendledger-app) and SENDLEDGER_CLI_BINARY
(default: `sendledger` next to the app binary) choose the builds; measure release builds.
SENDLEDGER_BENCH_IDLE_S (default 60) is the wake-up window. Figures go into
docs/performance.md.
"""
import hashlib
import os
import statistics
import subprocess
import sys
import time

from harness import APP, Desktop, Profile, Tray, X, kill, profile_pid, wait_until, xembed_tray

import memory

SETTLE_S = 3.0  # memory is read after the app has been idle this long
# Time from the menu opening to the click on "Open queue": a person pointing at the
# second entry of a menu they just opened (SENDLEDGER_BENCH_DWELL_S).
MENU_DWELL_S = float(os.environ.get("SENDLEDGER_BENCH_DWELL_S", "0.5"))
IDLE_S = float(os.environ.get("SENDLEDGER_BENCH_IDLE_S", "60"))
CLI = os.environ.get("SENDLEDGER_CLI_BINARY", os.path.join(os.path.dirname(APP), "sendledger"))


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
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


def tree(pid):
    return [pid] + descendants(pid)


def tree_rss(pid):
    """(MB of the tray process, MB of all the app's processes, how many besides the tray,
    their names): the tray's tree (its window process, and WebKit's below it)."""
    pids = tree(pid)
    names = []
    for p in pids[1:]:
        try:
            with open(f"/proc/{p}/comm") as f:
                names.append(f.read().strip())
        except OSError:
            pass
    return rss_kb(pid) / 1024, sum(rss_kb(p) for p in pids) / 1024, len(pids) - 1, names


def switches(pid):
    """{(pid, tid): voluntary context switches} over every thread of every process of pid."""
    out = {}
    for p in tree(pid):
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tids:
            try:
                with open(f"/proc/{p}/task/{t}/status") as f:
                    for line in f:
                        if line.startswith("voluntary_ctxt_switches:"):
                            out[(p, t)] = int(line.split()[1])
            except OSError:
                continue
    return out


def wakeups_per_s(pid, seconds=IDLE_S):
    """Voluntary context switches per second over `seconds`, all threads together. Sampled
    every second, so a thread that ends loses at most its last second; a thread that
    starts counts from zero."""
    first = switches(pid)
    last = dict(first)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        time.sleep(1.0)  # the bench sleeps, never the app
        last.update(switches(pid))
    total = sum(n - first.get(k, 0) for k, n in last.items())
    return total / seconds, len(last)


# GTK's overlay scroll indicator: drawn over the page's right edge, then faded out over
# ~1 s; a frame of that fade is not the queue still painting.
SCROLL_INDICATOR_PX = 24


def window_image(x, win):
    """The window's pixels (BGRX rows), without its right SCROLL_INDICATOR_PX columns."""
    g = win.get_geometry()
    from Xlib import X as XC
    data = win.get_image(0, 0, g.width, g.height, XC.ZPixmap, 0xFFFFFFFF).data
    row, kept = g.width * 4, (g.width - SCROLL_INDICATOR_PX) * 4
    return b"".join(data[y * row:y * row + kept] for y in range(g.height))


def blank(data):
    """Whether a frame is one colour (nothing painted yet), sampling every 97th pixel."""
    return len(set(data[i:i + 4] for i in range(0, len(data), 4 * 97))) <= 2


def paint_times(x, t_open, bound=20.0):
    """(s to the first non-blank frame, s to the first frame equal to the settled one, the
    window). Frames are read until one is painted (within `bound` s), then SETTLE_S more.
    The scroll indicator's strip is left out of every frame (`window_image`): once rows
    reach below the view GTK shows it (seen ~2 s after opening) and fades it out, and the
    last frame of that fade would otherwise be taken for the settled queue."""
    win = wait_until(lambda: x.shown(), "the window", bound=bound)[0]
    frames = []
    painted_at = None
    deadline = time.time() + bound
    while time.time() < deadline and (painted_at is None or time.time() < painted_at + SETTLE_S):
        try:
            data = window_image(x, win)
        except Exception:
            continue
        t = time.time()
        is_blank = blank(data)
        if not is_blank and painted_at is None:
            painted_at = t
        frames.append((t, is_blank, hashlib.sha1(data).digest()))
    if painted_at is None:
        raise AssertionError(f"the window painted nothing within {bound:.0f} s")
    settled = frames[-1][2]
    queue = next(t for t, _, h in frames if h == settled)
    return painted_at - t_open, queue - t_open, win


def launch(desktop, tray_host, p):
    """(the tray's pid, s from launch to the tray)."""
    env = {**os.environ, "HOME": p.home}
    t0 = time.time()
    proc = subprocess.Popen([APP, "--profile", p.dir, "--hidden"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if tray_host:
        rec = wait_until(lambda: [r for r in desktop.records("tray_item") if r["t"] >= t0], "the tray item")[0]
        to_tray = rec["t"] - t0
        proc.wait(30)
    else:
        assert proc.wait(30) == 0, "the launcher leaves once the tray is ready"
        to_tray = time.time() - t0
    return wait_until(lambda: profile_pid(p), "the tray to own the profile"), to_tray


def open_window(desktop, tray_host, tray_pid, x, dwell=MENU_DWELL_S):
    """When "Open queue" was chosen in the tray's menu, opened `dwell` s before."""
    if tray_host:
        tray = Tray(desktop, tray_pid)
        tray.open_menu()
        time.sleep(dwell)  # the person reads the menu
        t = time.time()
        tray.click("Open queue")
        tray.close_menu()
        return t
    x.xembed_menu()
    time.sleep(dwell)
    t = time.time()
    x.key("Down")  # the first entry that can be chosen: Open queue
    x.key("Return")
    return t


def one_window(desktop, tray, x):
    """Opens the window from the tray's menu as a person does, waits for it to settle and
    returns (s from Open queue to the queue painted, the window)."""
    t_open = open_window(desktop, True, tray, x)
    _, painted, win = paint_times(x, t_open)
    return painted, win


def one_run(tray_host, wakeups):
    desktop = Desktop(tray_host=tray_host)
    trayer = None if tray_host else xembed_tray()
    p = Profile()
    tray = None
    try:
        tray, to_tray = launch(desktop, tray_host, p)
        time.sleep(SETTLE_S)  # a benchmark idles on purpose; tests never sleep
        r = {"to_tray": to_tray, "hidden": tree_rss(tray)}
        if wakeups:
            r["wake_hidden"] = wakeups_per_s(tray)
        x = X()
        t_open = open_window(desktop, tray_host, tray, x)
        r["first_paint"], r["queue_paint"], win = paint_times(x, t_open)
        r["shown"] = tree_rss(tray)
        x.close(win)
        wait_until(lambda: not x.shown(), "the window to close")
        time.sleep(SETTLE_S)
        r["closed"] = tree_rss(tray)
        if wakeups:
            r["wake_closed"] = wakeups_per_s(tray)
        if tray_host:  # again, clicked the moment the menu opened: nothing prepared in time
            t_open = open_window(desktop, tray_host, tray, x, dwell=0.0)
            _, r["queue_paint_no_dwell"], win = paint_times(x, t_open)
            x.close(win)
            wait_until(lambda: not x.shown(), "the window to close")
        return r
    finally:
        if tray:
            kill(tray)
        if trayer:
            trayer.terminate()
            trayer.wait(10)
        desktop.close()


def serve_run():
    p = Profile()
    proc = subprocess.Popen([CLI, "--profile", p.dir, "serve"], stdout=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: "listening" in proc.stdout.readline(), "sendledger serve to start")
        time.sleep(SETTLE_S)
        rss = rss_kb(proc.pid) / 1024
        return rss, wakeups_per_s(proc.pid)
    finally:
        kill(proc.pid)
        proc.wait(10)


def report(name, results):
    med = statistics.median
    for i, r in enumerate(results):
        h, s, c = r["hidden"], r["shown"], r["closed"]
        fp = f"{r['first_paint'] * 1000:.0f}"
        no_dwell = (f" (clicked as the menu opened: →queue painted {r['queue_paint_no_dwell'] * 1000:.0f} ms)"
                    if "queue_paint_no_dwell" in r else "")
        line = (f"{name} run {i + 1}: launch→tray {r['to_tray'] * 1000:.0f} ms; open→first paint {fp} ms, "
                f"→queue painted {r['queue_paint'] * 1000:.0f} ms{no_dwell}; RSS tray/all processes (MB): never opened "
                f"{h[0]:.1f}/{h[1]:.1f} ({h[2]} children), window open {s[0]:.1f}/{s[1]:.1f} ({s[2]}: {' '.join(s[3])}), "
                f"after closing {c[0]:.1f}/{c[1]:.1f} ({c[2]}: {' '.join(c[3])})")
        if "wake_hidden" in r:
            line += (f"; wake-ups/s never opened {r['wake_hidden'][0]:.2f} ({r['wake_hidden'][1]} threads), "
                     f"after closing {r['wake_closed'][0]:.2f} ({r['wake_closed'][1]} threads)")
        print(line, flush=True)
    print(f"{name} median of {len(results)}: launch→tray {med([r['to_tray'] for r in results]) * 1000:.0f} ms; "
          f"open→queue painted {med([r['queue_paint'] for r in results]) * 1000:.0f} ms; "
          f"RSS all processes never opened {med([r['hidden'][1] for r in results]):.1f} MB, "
          f"after closing {med([r['closed'][1] for r in results]):.1f} MB, "
          f"window open {med([r['shown'][1] for r in results]):.1f} MB", flush=True)


def main(runs):
    if runs == "memory":
        memory.main(int(sys.argv[2]) if len(sys.argv) > 2 else 3, one_window=one_window)
        return
    runs = int(runs)
    print(f"app: {APP}\ncli: {CLI}\nload average: {os.getloadavg()}; menu dwell {MENU_DWELL_S * 1000:.0f} ms",
          flush=True)
    for tray_host, name in ((True, "with a StatusNotifier host"), (False, "without a StatusNotifier host")):
        # The wake-ups are measured in the first run only (IDLE_S each, twice).
        results = [one_run(tray_host, wakeups=(i == 0)) for i in range(runs)]
        report(name, results)
    rss, (wake, threads) = serve_run()
    print(f"sendledger serve: RSS {rss:.1f} MB; wake-ups/s idle {wake:.2f} ({threads} threads)")
    print(f"load average at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "5")
