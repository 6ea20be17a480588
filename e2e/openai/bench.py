#!/usr/bin/env python3
"""Figures for docs/performance.md (run on demand, never asserted):

- door overhead: a send queued and answered through `POST /v1/chat/completions` with the
  official SDK (non-streamed) against the same send through the native routes
  (`POST /v1/sends`, then `GET /v1/sends/{id}/wait` until completed), the extension played
  by player.py answering at once; p50 of each and their difference;
- first delta latency: from the player posting the observation that carries the answer's
  first piece to the SDK's stream yielding the first content delta (one process, one clock).

    SENDLEDGER_BIN=target/release/sendledger e2e/openai/bench.py [N]
"""
import os
import statistics
import sys
import tempfile
import threading
import time

import openai

sys.path.insert(0, os.path.dirname(__file__))
from conftest import Owner, free_port  # noqa: E402
from player import Player, http  # noqa: E402

ANSWER = "One line of answer, streamed in five pieces."


def answer_forever(player, stop, marks):
    while not stop.is_set():
        send = player.next(wait_ms=500)
        if send is None:
            continue
        player.grant(send["op_id"])
        player.page_turn(send, ANSWER, pieces=5,
                         between=lambda i: i == 1 and marks.append(time.perf_counter()))


def native(owner, i):
    token = owner.client_token()
    t = time.perf_counter()
    status, body, _ = http(owner.port, "POST", "/v1/sends", {"op_id": f"native-{i}", "text": f"native {i}"}, token=token)
    assert status == 201, body
    state = "queued"
    while state != "completed":
        status, body, _ = http(owner.port, "GET", f"/v1/sends/native-{i}/wait?from={state}&timeout_ms=10000", token=token)
        assert status == 200, body
        state = body["send"]["state"]
    return time.perf_counter() - t


def door(sdk, i):
    t = time.perf_counter()
    r = sdk.chat.completions.create(model="chatgpt-tab", messages=[{"role": "user", "content": f"door {i}"}])
    assert r.choices[0].message.content == ANSWER
    return time.perf_counter() - t


def first_delta(sdk, marks, i):
    before = len(marks)
    stream = sdk.chat.completions.create(model="chatgpt-tab", stream=True,
                                         messages=[{"role": "user", "content": f"stream {i}"}])
    got = None
    for chunk in stream:
        if got is None and chunk.choices[0].delta.content:
            got = time.perf_counter()
    return got - marks[before]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    with tempfile.TemporaryDirectory() as tmp, open(os.devnull, "w") as log:
        profile = os.path.join(tmp, "profile")
        os.mkdir(profile, 0o700)
        owner = Owner(profile, free_port(), log).start()
        try:
            key = owner.cli("keys", "create", "bench", "--by", "bench")["secret"]
            sdk = openai.OpenAI(base_url=owner.base_url(), api_key=key, timeout=60)
            player = Player(owner.port, owner.client_token())
            player.lease()
            stop, marks = threading.Event(), []
            th = threading.Thread(target=answer_forever, args=(player, stop, marks), daemon=True)
            th.start()
            for i in range(5):  # warm-up
                native(owner, f"w{i}"), door(sdk, f"w{i}")
            nat, dr, fd = [], [], []
            for i in range(n):
                nat.append(native(owner, i))
                dr.append(door(sdk, i))
                fd.append(first_delta(sdk, marks, i))
            stop.set()
            ms = lambda xs: statistics.median(xs) * 1000
            print(f"n={n}")
            print(f"native route, queue to completed: p50 {ms(nat):.1f} ms")
            print(f"openai door (python SDK), request to answer: p50 {ms(dr):.1f} ms")
            print(f"door overhead (p50 difference): {ms(dr) - ms(nat):.1f} ms")
            print(f"first delta after the page's first piece: p50 {ms(fd):.1f} ms, p90 {statistics.quantiles(fd, n=10)[-1] * 1000:.1f} ms")
        finally:
            owner.stop()


if __name__ == "__main__":
    main()
