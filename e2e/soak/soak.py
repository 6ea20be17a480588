#!/usr/bin/env python3
"""Soak bench (run on demand, never in CI, never asserted): many sends through a fake tab
against a real `sendledger serve`, and what a long-lived owner costs as they pile up.

The extension is played by e2e/openai/player.py over the real routes (lease, next, the
dispatch grant, the page's request and a delta-encoded answer stream). Every send is
queued with `POST /v1/sends` and answered; one send is left uncertain at the start (the
owner is SIGKILLed after its grant and started again), so the queue always has a row that
needs a person, and a reader follows the queue feed as the window does. Every REPORT
sends it prints one line:

    sends  rss_kib (anon, file, shmem)  threads  queue_read_ms(p50/max of 5)  sends_per_s

and at the end whether the old uncertain send is still in `GET /v1/queue`.

    SENDLEDGER_BIN=target/release/sendledger e2e/soak/soak.py [SENDS] [REPORT]
"""
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "openai"))
from player import Player, http  # noqa: E402

BIN = os.environ.get(
    "SENDLEDGER_BIN", os.path.join(os.path.dirname(__file__), "../../target/debug/sendledger"))
ANSWER = "One line of answer, streamed in four pieces."


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(profile, port, wrap=()):
    proc = subprocess.Popen([*wrap, BIN, "--profile", profile, "serve", "--port", str(port)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, text=True)
    ready = threading.Event()

    def read():
        for line in proc.stdout:
            if line.startswith("port "):
                ready.set()
    threading.Thread(target=read, daemon=True).start()
    assert ready.wait(30), "serve printed its port"
    return proc


def rss_kib(pid):
    """VmRSS, and its parts (anonymous, file-backed, shared memory), in KiB."""
    got = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "RssAnon", "RssFile", "RssShmem", "Threads"):
                got[key] = int(rest.split()[0])
    return (f"{got.get('VmRSS', 0)}\t{got.get('RssAnon', 0)}\t{got.get('RssFile', 0)}"
            f"\t{got.get('RssShmem', 0)}\t{got.get('Threads', 0)}")


def queue_read_ms(port, token):
    times = []
    for _ in range(5):
        t = time.perf_counter()
        status, view, _ = http(port, "GET", "/v1/queue", token=token)
        times.append((time.perf_counter() - t) * 1000)
        assert status == 200, view
    return statistics.median(times), max(times), view


def follow_feed(port, token):
    """Holds `GET /v1/queue/feed` open and reads every event, as the queue window does."""
    import http.client

    def run():
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=None)
        c.request("GET", "/v1/queue/feed", headers={"authorization": f"Bearer {token}"})
        r = c.getresponse()
        while r.read1(65536):
            pass
    threading.Thread(target=run, daemon=True).start()


def queue(port, token, op):
    status, body, _ = http(port, "POST", "/v1/sends", {"op_id": op, "text": f"soak {op}"},
                           token=token)
    assert status in (200, 201), body


def main(argv):
    total = int(argv[1]) if len(argv) > 1 else 10_000
    every = int(argv[2]) if len(argv) > 2 else 1_000
    profile = os.path.join(tempfile.mkdtemp(prefix="sendledger-soak-"), "profile")
    os.makedirs(profile, mode=0o700)
    port = free_port()
    proc = start(profile, port)
    token = open(os.path.join(profile, "client.token")).read().strip()
    # One send left uncertain: granted, then the owner is SIGKILLed and started again.
    player = Player(port, token)
    player.lease()
    queue(port, token, "soak-uncertain")
    send = player.next()
    player.grant(send["op_id"])
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    # SOAK_WRAP: a command the measured owner runs under (e.g. "heaptrack -o /tmp/ht").
    proc = start(profile, port, os.environ.get("SOAK_WRAP", "").split())
    token = open(os.path.join(profile, "client.token")).read().strip()
    player = Player(port, token)
    player.lease()
    follow_feed(port, token)
    print(f"# {BIN}, profile {profile}, {total} sends, a line every {every}")
    print("sends\trss_kib\tanon_kib\tfile_kib\tshmem_kib\tthreads\tqueue_p50_ms\tqueue_max_ms\tsends_per_s")
    p50, worst, _ = queue_read_ms(port, token)
    print(f"0\t{rss_kib(proc.pid)}\t{p50:.1f}\t{worst:.1f}\t-", flush=True)
    mark = time.perf_counter()
    for i in range(1, total + 1):
        queue(port, token, f"soak-{i:07d}")
        player.answer_next(ANSWER, pieces=4)
        if i % every == 0:
            rate = every / (time.perf_counter() - mark)
            p50, worst, _ = queue_read_ms(port, token)
            print(f"{i}\t{rss_kib(proc.pid)}\t{p50:.1f}\t{worst:.1f}\t{rate:.0f}", flush=True)
            mark = time.perf_counter()
    _, _, view = queue_read_ms(port, token)
    listed = [r["op_id"] for r in view["uncertain"]]
    print(f"# uncertain listed after {total} sends: {listed}; counts say {view['status']['uncertain']}")
    proc.terminate()
    proc.wait(30)


if __name__ == "__main__":
    main(sys.argv)
