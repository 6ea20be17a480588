"""A client on another machine, through an SSH tunnel (issue 38): a real sshd on loopback
(tests/support/sshd.py), `ssh -N -L`, and the CLI and `sendledger mcp` naming the owner by
URL with a named key from a file. The tunnel is killed after the grant and opened again;
the client's retry is the one send. A send-scoped key is refused a person's acts with a
sentence; a revoked key's open stream ends with a refusal; a forged Host through the
tunnel is refused. The remote client's own profile folder is never made (it never opens a
ledger)."""

import http.client
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from mcp import Client, StdioServerParameters, stdio_client
from mcp_harness import BIN, BOUND, in_background

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))
from sshd import Sshd  # noqa: E402


def run(fn):
    return anyio.run(fn)


def make_key(serve, name, scope):
    out = subprocess.run([BIN, "--profile", str(serve.profile), "--json", "keys", "create", name,
                          "--scope", scope, "--by", "tester"], capture_output=True, text=True,
                         timeout=BOUND)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["secret"]


def revoke(serve, name):
    out = subprocess.run([BIN, "--profile", str(serve.profile), "keys", "revoke", name, "--by",
                          "tester"], capture_output=True, text=True, timeout=BOUND)
    assert out.returncode == 0, out.stderr


class Elsewhere:
    """The other machine's side: a key file, its own (never made) profile folder, and the
    CLI naming the owner by URL."""

    def __init__(self, tmp_path, secret, tunnel):
        self.key_file = tmp_path / "owner.key"
        self.key_file.write_text(secret + "\n")
        self.key_file.chmod(0o600)
        self.profile = tmp_path / "elsewhere-profile"
        self.tunnel = tunnel
        self.env = {**os.environ, "SENDLEDGER_PROFILE": str(self.profile)}
        self.env.pop("SENDLEDGER_API_KEY", None)

    def args(self):
        return ["--owner", self.tunnel.url, "--key-file", str(self.key_file)]

    def cli(self, *args):
        out = subprocess.run([BIN, *self.args(), "--json", *args], capture_output=True,
                             text=True, env=self.env, timeout=BOUND)
        try:
            answer = json.loads(out.stdout or out.stderr)
        except ValueError:
            answer = {"stdout": out.stdout, "stderr": out.stderr}
        return out.returncode, answer

    def mcp(self):
        params = StdioServerParameters(command=BIN, args=[*self.args(), "mcp"], env=self.env)
        errlog = open(self.key_file.parent / "mcp-elsewhere.log", "a")
        return Client(stdio_client(params, errlog=errlog), read_timeout_seconds=BOUND * 4)


@pytest.fixture
def sshd(tmp_path):
    s = Sshd(tmp_path / "sshd")
    yield s
    s.close()


@pytest.fixture
def tunnel(sshd, serve):
    t = sshd.tunnel(serve.port)
    yield t
    t.close()


def test_a_cli_send_through_a_tunnel_killed_after_the_grant_and_opened_again_is_one_send(
        serve, player, tunnel, tmp_path):
    there = Elsewhere(tmp_path, make_key(serve, "build-server", "send"), tunnel)
    lease = player.lease()
    code, queued = there.cli("send", "--id", "op-tunnel", "Through the tunnel.")
    assert code == 0 and queued["send"]["state"] == "queued", queued
    assert player.take_and_click(lease)["op_id"] == "op-tunnel"
    tunnel.kill()
    code, lost = there.cli("send", "--id", "op-tunnel", "Through the tunnel.")
    assert code != 0, f"no owner answers through a dropped tunnel: {lost}"
    tunnel.start()
    code, again = there.cli("send", "--id", "op-tunnel", "Through the tunnel.")
    assert code == 0, again
    assert (again["send"]["op_id"], again["send"]["state"]) == ("op-tunnel", "dispatched"), again
    code, shown = there.cli("show", "op-tunnel")
    assert code == 0 and shown["send"]["state"] == "dispatched", shown
    assert [s["op_id"] for s in serve.sends()] == ["op-tunnel"], "one send"
    assert player.next(lease, 500) is None and player.granted == ["op-tunnel"], "clicked once"
    assert not there.profile.exists(), "the remote client made no profile and opened no ledger"


def test_an_mcp_send_through_a_tunnel_killed_after_the_grant_is_retried_by_its_key_into_one_send(
        serve, player, tunnel, tmp_path):
    there = Elsewhere(tmp_path, make_key(serve, "agent-box", "send"), tunnel)
    lease = player.lease()

    async def body():
        async with there.mcp() as client:
            first = await client.call_tool("send_message", {
                "text": "Once, through the tunnel.", "idempotency_key": "tunnel-1", "wait_seconds": 0})
            assert not first.is_error and first.structured_content["send_id"] == "mcp-tunnel-1"
            send = player.take_and_click(lease)
            assert send["op_id"] == "mcp-tunnel-1"
            tunnel.kill()
            dropped = await client.call_tool("get_send", {"send_id": "mcp-tunnel-1"})
            assert dropped.is_error or dropped.structured_content["status"] != "completed"
            tunnel.start()
            page = in_background(player.answer, lease, send, "Answered once.")
            again = await client.call_tool("send_message", {
                "text": "Once, through the tunnel.", "idempotency_key": "tunnel-1", "wait_seconds": 30})
            page.result()
            r = again.structured_content
            assert not again.is_error and r["send_id"] == "mcp-tunnel-1", r
            assert r["status"] in ("completed", "pending"), r
            looked = await client.call_tool("get_send", {"send_id": "mcp-tunnel-1", "wait_seconds": 30})
            assert looked.structured_content["status"] == "completed", looked.structured_content
    run(body)
    assert [s["op_id"] for s in serve.sends()] == ["mcp-tunnel-1"], "one send"
    assert player.next(lease, 500) is None and player.granted == ["mcp-tunnel-1"], "clicked once"
    assert not there.profile.exists(), "the remote MCP server opened no ledger"


def test_a_send_scoped_key_through_the_tunnel_is_refused_stop_decisions_and_settings_with_a_sentence(
        serve, player, tunnel, tmp_path):
    there = Elsewhere(tmp_path, make_key(serve, "ci", "send"), tunnel)
    code, _ = there.cli("send", "--id", "op-ci", "Queued from CI.")
    assert code == 0
    before = serve.sends()
    for args, words in [
        (["stop"], "scope send"),
        (["resume", "--by", "ci"], "scope send"),
        (["resolve", "op-ci", "--abandoned", "--by", "ci"], "scope send"),
        (["withdraw", "op-ci"], "scope send"),
        (["keys", "create", "more", "--scope", "all"], "scope send"),
        (["max-in-flight", "2"], "scope send"),
        (["destination", "set", "new-chat"], "scope send"),
        (["status"], "needs the local profile"),
    ]:
        code, refused = there.cli(*args)
        assert code != 0, f"{args}: {refused}"
        said = json.dumps(refused)
        assert words in said, f"{args}: the sentence says why: {said}"
    assert serve.sends() == before, "nothing changed"
    assert serve.show("op-ci")["send"]["state"] == "queued"

    async def body():
        async with there.mcp() as client:
            r = await client.call_tool("stop", {})
            said = " ".join(getattr(c, "text", "") for c in r.content)
            assert r.is_error and "scope send" in said, said
    run(body)
    status, _ = serve.request("POST", "/v1/sends", {"op_id": "op-open", "text": "gate open"},
                              token=serve.client_token())
    assert status == 201, "the gate is still open: no Stop went through"


def _raw(port, head: str, read_until=None):
    """One request on a fresh connection; the answer as text (read until `read_until`
    appears, the connection ends, or the bound)."""
    with socket.create_connection(("127.0.0.1", port), timeout=BOUND) as s:
        s.sendall(head.encode())
        got = b""
        while read_until is None or read_until.encode() not in got:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            got += chunk
            if read_until and read_until.encode() in got:
                break
        return got.decode(errors="replace")


def test_a_revoked_key_is_refused_mid_stream_through_the_tunnel(serve, tunnel, tmp_path):
    secret = make_key(serve, "watcher", "send")
    head = (f"GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1:{tunnel.local_port}\r\n"
            f"Authorization: Bearer {secret}\r\nAccept: text/event-stream\r\n\r\n")
    with socket.create_connection(("127.0.0.1", tunnel.local_port), timeout=BOUND) as s:
        s.sendall(head.encode())
        opened = s.recv(65536).decode(errors="replace")
        assert opened.startswith("HTTP/1.1 200"), opened
        revoke(serve, "watcher")
        rest = b""
        while b"event: error" not in rest or b"\n\n" not in rest.split(b"event: error", 1)[1]:
            chunk = s.recv(65536)
            if not chunk:
                break
            rest += chunk
    rest = rest.decode(errors="replace")
    assert "event: error" in rest and "revoked" in rest, rest
    code, again = Elsewhere(tmp_path, secret, tunnel).cli("send", "--id", "op-x", "after revoke")
    assert code != 0 and "revoked" in json.dumps(again), again


def test_a_forged_host_through_the_tunnel_is_refused(serve, tunnel, tmp_path):
    secret = make_key(serve, "host-check", "send")
    auth = f"Authorization: Bearer {secret}\r\nConnection: close\r\n\r\n"
    forged = _raw(tunnel.local_port, f"GET /v1/status HTTP/1.1\r\nHost: evil.example:{tunnel.local_port}\r\n{auth}")
    assert forged.startswith("HTTP/1.1 421") and "bad_host" in forged, forged
    looks_alike = _raw(tunnel.local_port, f"GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1.evil.example:{tunnel.local_port}\r\n{auth}")
    assert looks_alike.startswith("HTTP/1.1 421"), looks_alike
    tunnelled = _raw(tunnel.local_port, f"GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1:{tunnel.local_port}\r\n{auth}")
    assert tunnelled.startswith("HTTP/1.1 200"), "what ssh -L presents is let in: " + tunnelled
