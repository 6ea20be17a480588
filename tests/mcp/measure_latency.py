"""Measures the MCP door's own cost (not a test): round trips of the official Python MCP
client through `sendledger mcp` to a running `sendledger serve`, per tool, with no browser
in the loop. Prints p50 and p95 in ms.

    SENDLEDGER_BIN=target/release/sendledger target/mcp-venv/bin/python tests/mcp/measure_latency.py
"""

import statistics
import tempfile
import time
from pathlib import Path

import anyio

from mcp_harness import Serve, mcp_client

N = 200


def pct(samples, p):
    s = sorted(samples)
    return s[min(len(s) - 1, int(len(s) * p))]


async def measure(profile: Path):
    async with mcp_client(profile) as client:
        await client.list_tools()
        runs = {"send_message (wait 0, queued)": [], "get_send": [], "list_uncertain": []}
        for i in range(N):
            t = time.perf_counter()
            await client.call_tool("send_message", {"text": f"m{i}", "idempotency_key": f"k{i}",
                                                    "wait_seconds": 0})
            runs["send_message (wait 0, queued)"].append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            await client.call_tool("get_send", {"send_id": f"mcp-k{i}"})
            runs["get_send"].append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            await client.call_tool("list_uncertain", {})
            runs["list_uncertain"].append((time.perf_counter() - t) * 1000)
        for name, samples in runs.items():
            print(f"{name:32s} n={N} p50 {statistics.median(samples):6.2f} ms  p95 {pct(samples, 0.95):6.2f} ms")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        profile = Path(tmp) / "profile"
        profile.mkdir(mode=0o700)
        serve = Serve(profile)
        try:
            anyio.run(measure, profile)
        finally:
            serve.close()


if __name__ == "__main__":
    main()
