"""The window's memory, for e2e/app/bench.py (`bench.py memory [RUNS]`; run on demand, never
asserted): PSS from `/proc/PID/smaps_rollup` summed over the tray, the window and WebKit's
processes, split into anonymous and file-backed pages, with the window open on an empty
queue, on 1000 of history (History's first page shown), on 300 pending + 1000 of history,
that window scrolled to its bottom (the End key), and with 1000 withdrawn sends more in
Stopped (a section shown whole). One profile per run, seeded through the owner's own
routes (`Profile.seed`); each window is opened from the tray's menu and closed before the
next seeding, so every figure is a window that just opened on that queue."""
import statistics
import time

from harness import Desktop, Profile, X, kill, wait_until

SETTLE_S = 3.0  # memory is read after the window has been idle this long
PENDING = 300
HISTORY = 1000
STOPPED = 1000  # withdrawn: Stopped has no pages, so every one is a row of the window
FIELDS = ("Rss", "Pss", "Pss_Anon", "Pss_File", "Pss_Shmem")


def rollup(pid):
    """{field: kB} of /proc/PID/smaps_rollup (FIELDS), or None once the process is gone."""
    out = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                name, _, rest = line.partition(":")
                if name in FIELDS:
                    out[name] = int(rest.split()[0])
    except OSError:
        return None
    return out


def comm(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return "?"


def snapshot(tray_pid):
    """[(name, {field: kB})] for the tray and every process below it (the window, WebKit's)."""
    from bench import tree
    out = []
    for p in tree(tray_pid):
        r = rollup(p)
        if r:
            out.append((comm(p), r))
    return out


def mb(kb):
    return kb / 1024


def line(label, painted, procs):
    total = {f: sum(r.get(f, 0) for _, r in procs) for f in FIELDS}
    parts = ", ".join(f"{n} {mb(r['Pss']):.1f} (anon {mb(r.get('Pss_Anon', 0)):.1f})" for n, r in procs)
    paint = f"open→queue painted {painted * 1000:.0f} ms; " if painted is not None else ""
    return (f"{label}: {paint}PSS summed {mb(total['Pss']):.1f} MB (anon {mb(total['Pss_Anon']):.1f}, "
            f"file {mb(total['Pss_File']):.1f}, shmem {mb(total['Pss_Shmem']):.1f}; RSS summed "
            f"{mb(total['Rss']):.1f}) — {parts}"), mb(total["Pss"])


def one_run(one_window):
    """{label: (line, PSS MB)} for the four windows of one run on a fresh profile."""
    from bench import launch
    desktop = Desktop(tray_host=True)
    p = Profile()
    tray = None
    out = {}
    try:
        tray, _ = launch(desktop, True, p)
        x = X()
        # History first: its sends are claimed by a fake tab, which would take pending ones.
        for label, seed in (("empty queue", None), (f"{HISTORY} history", (0, 0, HISTORY)),
                            (f"{PENDING} pending + {HISTORY} history", (PENDING, 0, 0)),
                            (f"{PENDING} pending + {HISTORY} history + {STOPPED} stopped", (0, STOPPED, 0))):
            if seed:
                p.seed(pending=seed[0], stopped=seed[1], history=seed[2], prefix=f"s{len(out)}")
            painted, win = one_window(desktop, tray, x)
            time.sleep(SETTLE_S)  # a benchmark idles on purpose; tests never sleep
            out[label] = line(label, painted, snapshot(tray))
            if seed and seed[0] == PENDING:
                for _ in range(3):  # End scrolls to the bottom; rows below may grow it twice
                    x.key("End")
                    time.sleep(1.0)
                time.sleep(SETTLE_S)
                out[label + ", scrolled to the end"] = line(label + ", scrolled to the end", None, snapshot(tray))
            x.close(win)
            wait_until(lambda: not x.shown(), "the window to close")
        return out
    finally:
        if tray:
            kill(tray)
        desktop.close()


def main(runs, one_window):
    import os
    print(f"load average: {os.getloadavg()}", flush=True)
    results = []
    for i in range(runs):
        r = one_run(one_window)
        for label, (text, _) in r.items():
            print(f"run {i + 1} {text}", flush=True)
        results.append(r)
    for label in results[0]:
        print(f"median of {runs}, {label}: PSS summed {statistics.median(r[label][1] for r in results):.1f} MB",
              flush=True)
    print(f"load average at the end: {os.getloadavg()}", flush=True)
