"""Helpers of the MCP suite: a real `sendledger serve` child process, HTTP to its loopback
bridge, the browser extension played over HTTP (the routes extension/ uses: pairing,
lease, next, dispatch, observations of the page's own traffic — chatgpt.com's, or
claude.ai's for a tab leased with `site="claude"`: tests/support/claude_page.py), and the
official MCP client SDK launching `sendledger mcp` as its stdio server.

Every wait has a bound (BOUND); nothing sleeps to wait for an event except the player's
bounded polls of a state it does not drive.
"""

import http.client
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from contextlib import asynccontextmanager
from pathlib import Path

from mcp import Client, StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "support"))
from claude_page import ClaudeTurn  # noqa: E402
BIN = os.environ.get("SENDLEDGER_BIN") or str(ROOT / "target" / "debug" / "sendledger")
BOUND = 30.0
EXTENSION_ORIGIN = "chrome-extension://abcdefghijklmnopabcdefghijklmnop"
URL = "https://chatgpt.com/backend-api/f/conversation"


class Serve:
    """`sendledger --profile DIR serve --port 0`, ready once it printed `port N`."""

    def __init__(self, profile: Path, *extra: str):
        self.profile = Path(profile)
        self.stderr_lines: list[str] = []
        self.proc = subprocess.Popen(
            [BIN, "--profile", str(profile), "serve", "--port", "0", *extra],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "SENDLEDGER_LOG": "debug"},
        )
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, args=(self.proc.stdout, lines.put), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.stderr_lines.append), daemon=True).start()
        deadline = time.monotonic() + BOUND
        self.port = 0
        while not self.port:
            line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            if line is None:
                raise RuntimeError("serve exited before it was ready: " + "".join(self.stderr_lines))
            if line.startswith("port "):
                self.port = int(line.split()[1])

    @staticmethod
    def _pump(stream, sink):
        for line in stream:
            sink(line)
        sink(None)

    def log(self) -> str:
        return "".join(line for line in self.stderr_lines if line)

    def client_token(self) -> str:
        return (self.profile / "client.token").read_text().strip()

    def request(self, method, path, body=None, token=None, origin=None, timeout=BOUND):
        """One HTTP exchange with the bridge: (status, JSON body or None)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        headers = {"content-type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if origin:
            headers["Origin"] = origin
        data = None if body is None else json.dumps(body).encode()
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            raw = resp.read()
        finally:
            conn.close()
        try:
            return resp.status, json.loads(raw)
        except ValueError:
            return resp.status, None

    def client(self, method, path, body=None):
        """A client-scope request; asserts success and returns the JSON."""
        status, answer = self.request(method, path, body, token=self.client_token())
        assert status in (200, 201), f"{method} {path}: {status} {answer}"
        return answer

    def show(self, op_id: str) -> dict:
        return self.client("GET", f"/v1/sends/{op_id}")

    def sends(self) -> list:
        return self.client("GET", "/v1/sends?limit=1000")["sends"]

    def kill(self):
        """SIGKILL, and reap."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=BOUND)
        assert self.proc.returncode == -signal.SIGKILL, "serve died of SIGKILL"

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=BOUND)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def request_body(text: str, user_message_id: str) -> str:
    """The page's conversation request for a new chat with one user message (own ids)."""
    return json.dumps({
        "action": "next",
        "messages": [{
            "id": user_message_id,
            "author": {"role": "user"},
            "create_time": 1790000100.5,
            "content": {"content_type": "text", "parts": [text]},
            "metadata": {},
        }],
        "parent_message_id": "client-created-root",
        "model": "auto",
        "conversation_mode": {"kind": "primary_assistant"},
        "supports_buffering": True,
        "supported_encodings": ["v1"],
    })


def _message(id_, role, text, *, status, end_turn, meta):
    return {
        "id": id_, "author": {"role": role, "name": None, "metadata": {}},
        "create_time": 1790000101.0, "update_time": None,
        "content": {"content_type": "text", "parts": [text]},
        "status": status, "end_turn": end_turn, "weight": 1.0, "metadata": meta,
        "recipient": "all", "channel": None,
    }


def delta_stream(conv, user_id, turn, assistant_id, text, answer, images=()) -> str:
    """A delta-v1 event stream: the user message with its turn id, then (with `images`:
    page file ids) an image_gen tool message pointing at each, then an answer that
    finishes (`finished_successfully`, `end_turn` true). The project's own ids and words."""
    def delta(v):
        return "event: delta\ndata: " + json.dumps(v) + "\n\n"
    user = _message(user_id, "user", text, status="finished_successfully", end_turn=None,
                    meta={"turn_exchange_id": turn})
    parent, pictures = user_id, ""
    root = lambda m, c: {"v": {"message": m, "conversation_id": conv, "error": None}, "c": c}
    if images:
        tool = _message(str(uuid.uuid4()), "tool", "", status="finished_successfully",
                        end_turn=False, meta={"parent_id": user_id, "turn_exchange_id": turn})
        tool["author"]["name"] = "image_gen"
        tool["content"] = {"content_type": "multimodal_text", "parts": [
            {"content_type": "image_asset_pointer", "asset_pointer": "sediment://" + f,
             "size_bytes": 10, "width": 8, "height": 8} for f in images]}
        parent, pictures = tool["id"], delta(root(tool, 1))
    assistant = _message(assistant_id, "assistant", "", status="in_progress", end_turn=None,
                         meta={"parent_id": parent, "turn_exchange_id": turn})
    return ("event: delta_encoding\ndata: \"v1\"\n\n"
            + delta(root(user, 0))
            + pictures
            + delta(root(assistant, 2 if images else 1))
            + delta({"p": "/message/content/parts/0", "o": "append", "v": answer})
            + delta({"p": "", "o": "patch", "v": [
                {"p": "/message/status", "o": "replace", "v": "finished_successfully"},
                {"p": "/message/end_turn", "o": "replace", "v": True}]})
            + "data: " + json.dumps({"type": "message_stream_complete", "conversation_id": conv}) + "\n\n"
            + "data: [DONE]\n\n")


def limit_stream(conv, user_id, turn, text, words, code) -> str:
    """A delta-v1 stream the page ends with its own error and no answer: the user message
    (the receipt), then `{"type": "error", "error": {message, code}}` (the shape of
    tests/fixtures/chatgpt/stream_delta_usage_limit.sse), then [DONE]."""
    user = _message(user_id, "user", text, status="finished_successfully", end_turn=None,
                    meta={"turn_exchange_id": turn})
    root = {"v": {"message": user, "conversation_id": conv, "error": None}, "c": 0}
    error = {"type": "error", "conversation_id": conv, "error": {"message": words, "code": code}}
    return ("event: delta_encoding\ndata: \"v1\"\n\n"
            + "event: delta\ndata: " + json.dumps(root) + "\n\n"
            + "data: " + json.dumps(error) + "\n\n"
            + "data: [DONE]\n\n")


class Player:
    """The browser extension, played over HTTP against a serve (pair once, then lease)."""

    def __init__(self, serve: Serve):
        code = serve.client("POST", "/v1/pairing-code", {})["code"]
        status, body = serve.request("POST", "/v1/pair", {"code": code}, origin=EXTENSION_ORIGIN)
        assert status == 200, f"pairing: {status} {body}"
        self.token = body["token"]
        self.serve = serve
        self.granted: list[str] = []
        self.sites: dict[str, str] = {}  # lease id → its tab's site
        self.claude_turns: dict[str, ClaudeTurn] = {}  # op id → the claude.ai turn forwarded


    def call(self, method, path, body=None, timeout=BOUND):
        return self.serve.request(method, path, body, token=self.token, origin=EXTENSION_ORIGIN,
                                  timeout=timeout)

    def lease(self, tab="tab-1", site="chatgpt") -> str:
        """Binds `tab` of `site` ("chatgpt" | "claude"); its page's traffic is that site's."""
        status, body = self.call("POST", "/v1/ext/lease", {"tab_id": tab, "site": site})
        assert status == 200, f"lease: {status} {body}"
        self.sites[body["lease_id"]] = site
        return body["lease_id"]

    def next(self, lease, wait_ms=20_000):
        status, body = self.call("POST", "/v1/ext/next", {"lease_id": lease, "wait_ms": wait_ms},
                                 timeout=wait_ms / 1000 + BOUND)
        assert status == 200, f"next: {status} {body}"
        return body["send"]

    def dispatch(self, lease, op_id, confirmed=None):
        """Asks for the grant, with what the tab shows (`confirmed`: its conversation or
        None for a new chat, Project, model, effort) when given; records a click when
        granted (the extension clicks then)."""
        ask = {"lease_id": lease, "op_id": op_id}
        if confirmed is not None:
            ask["confirmed"] = confirmed
        status, body = self.call("POST", "/v1/ext/dispatch", ask)
        if status == 200 and body.get("granted") is True:
            self.granted.append(op_id)
        return status, body

    def answer(self, lease, send, answer_text, images=()):
        """The page's traffic for `send`: its request, then a stream that answers (with
        generated `images`: page file ids). A claude.ai tab: `answer_claude`."""
        if self.sites.get(lease) == "claude":
            return self.answer_claude(lease, send, answer_text)
        conv, user_id, turn, assistant_id = (str(uuid.uuid4()) for _ in range(4))
        sid = "s-" + uuid.uuid4().hex[:8]
        base = {"lease_id": lease, "op_id": send["op_id"], "stream_id": sid}
        for obs in (
            {**base, "kind": "request", "url": URL, "body": request_body(send["text"], user_id)},
            {**base, "kind": "stream_chunk", "seq": 0,
             "chunk": delta_stream(conv, user_id, turn, assistant_id, send["text"], answer_text,
                                   images)},
            {**base, "kind": "stream_end"},
        ):
            status, body = self.call("POST", "/v1/ext/observations", obs)
            assert status == 200, f"observation {obs['kind']}: {status} {body}"
        return conv

    def answer_claude(self, lease, send, answer_text):
        """A claude.ai tab's traffic for `send`: the page's completion request (the ids the
        page chose for the message and the answer), then its event stream in pieces."""
        conversation = (send.get("destination") or {}).get("conversation_id")
        t = ClaudeTurn(send["text"], answer_text, conversation)
        self.claude_turns[send["op_id"]] = t
        base = {"lease_id": lease, "op_id": send["op_id"], "stream_id": "c-" + uuid.uuid4().hex[:8]}
        for obs in (
            {**base, "kind": "request", "url": t.url(), "body": t.request_body(), "status": 200},
            *({**base, "kind": "stream_chunk", "seq": i, "chunk": c} for i, c in enumerate(t.chunks())),
            {**base, "kind": "stream_end"},
        ):
            status, body = self.call("POST", "/v1/ext/observations", obs)
            assert status == 200, f"observation {obs['kind']}: {status} {body}"
        return t.conversation

    def limit(self, lease, send, words, code="usage_limit_reached"):
        """The page's traffic for `send`: its request, then a stream the page ends with the
        account's usage limit (its `words`, its `code`), no answer."""
        conv, user_id, turn = (str(uuid.uuid4()) for _ in range(3))
        sid = "s-" + uuid.uuid4().hex[:8]
        base = {"lease_id": lease, "op_id": send["op_id"], "stream_id": sid}
        for obs in (
            {**base, "kind": "request", "url": URL, "body": request_body(send["text"], user_id)},
            {**base, "kind": "stream_chunk", "seq": 0,
             "chunk": limit_stream(conv, user_id, turn, send["text"], words, code)},
            {**base, "kind": "stream_end"},
        ):
            status, body = self.call("POST", "/v1/ext/observations", obs)
            assert status == 200, f"observation {obs['kind']}: {status} {body}"

    def take_and_click(self, lease, wait_ms=20_000, confirmed=None):
        """Takes the next send and is granted the click; returns the send (or None). A
        claude.ai tab confirms the send's destination as the extension does after going
        there (one it must confirm: docs/bridge-api.md, `confirmed`)."""
        send = self.next(lease, wait_ms)
        if send is None:
            return None
        if confirmed is None and self.sites.get(lease) == "claude":
            d = send.get("destination") or {}
            confirmed = {k: d.get(k) for k in ("conversation_id", "project_id", "model")}
        status, body = self.dispatch(lease, send["op_id"], confirmed)
        assert status == 200 and body["granted"] is True, f"dispatch: {status} {body}"
        return send

    def play_one(self, lease, answer_text, wait_ms=20_000, confirmed=None):
        """Takes, clicks and answers one send; returns it (None when none came). The
        page's request names a new chat and the model `auto`."""
        send = self.take_and_click(lease, wait_ms, confirmed)
        if send is not None:
            self.answer(lease, send, answer_text)
        return send


    def hand_artifacts(self, lease, op_id, stored, unavailable):
        """As the extension does (h29out-contract §2): posts the bytes of the wanted
        artifacts of `op_id` in `stored` ({file id: (bytes, content-type)}) and reports
        those in `unavailable` ({file id: words})."""
        status, body = self.call("GET", f"/v1/ext/artifacts?lease_id={lease}&wait_ms=5000")
        assert status == 200, f"artifacts: {status} {body}"
        for a in body["artifacts"]:
            if a["op_id"] != op_id:
                continue
            path = f"/v1/ext/artifacts/{op_id}/{a['n']}"
            if a["file_id"] in stored:
                data, mime = stored[a["file_id"]]
                conn = http.client.HTTPConnection("127.0.0.1", self.serve.port, timeout=BOUND)
                conn.request("POST", f"{path}?lease_id={lease}&name={a['file_id']}", body=data, headers={
                    "Authorization": f"Bearer {self.token}", "Origin": EXTENSION_ORIGIN, "Content-Type": mime})
                r = conn.getresponse()
                assert r.status == 201, f"upload: {r.status} {r.read()}"
                conn.close()
            elif a["file_id"] in unavailable:
                status, body = self.call("POST", f"{path}/unavailable",
                                         {"lease_id": lease, "words": unavailable[a["file_id"]]})
                assert status == 200, f"unavailable: {status} {body}"


def in_background(fn, *args):
    """Runs `fn(*args)` on a thread; `.result()` joins it (bounded) and re-raises."""
    box = {}

    def run():
        try:
            box["value"] = fn(*args)
        except BaseException as e:  # noqa: BLE001 - re-raised in result()
            box["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()

    class Handle:
        def result(self, timeout=BOUND * 2):
            t.join(timeout)
            assert not t.is_alive(), "the background player did not finish in time"
            if "error" in box:
                raise box["error"]
            return box.get("value")

    return Handle()


@asynccontextmanager
async def mcp_client(profile: Path, mode="auto", log: Path | None = None, env=None):
    """The official MCP client, with `sendledger --profile DIR mcp` as its stdio server;
    the server's standard error goes to `log` (default: `mcp.log` beside the profile)."""
    params = StdioServerParameters(
        command=BIN, args=["--profile", str(profile), "mcp"],
        env={"SENDLEDGER_LOG": "trace", **(env or {})},
    )
    log = log or Path(profile).parent / "mcp.log"
    with open(log, "a") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode=mode,
                          read_timeout_seconds=BOUND * 4) as client:
            yield client
