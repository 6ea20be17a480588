#!/usr/bin/env python3
"""Plays the browser extension against a real `sendledger serve` over its HTTP routes:
pairs, leases a tab, takes the next send, asks for the dispatch grant (the one moment the
real extension would click Send: each grant is counted as a POST of the page), then
forwards page traffic of the project's own making in the formats of chatgpt.com (a
conversation request carrying the send's text, and a delta-encoded v1 answer stream in
pieces), or in those of claude.ai for a tab leased with `site="claude"` (the completion
request and its event stream: tests/support/claude_page.py). No third-party code: urllib only.

As a program (used by the node tests, harness.mjs): `player.py --page PORT PROFILE ANSWER
DELAY_S` plays the page (Page below) until killed, printing each grant.
"""
import hashlib
import json
import os
import sys
import threading
import urllib.error
import urllib.request
import uuid

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "support"))
from claude_page import MODEL as CLAUDE_MODEL, ClaudeTurn  # noqa: E402

ORIGIN = "chrome-extension://abcdefghijklmnopabcdefghijklmnop"
URL = "https://chatgpt.com/backend-api/f/conversation"
BOUND_S = 30


def http(port, method, path, body=None, token=None, origin=None, timeout=BOUND_S):
    """One request; returns (status, JSON body or None, headers)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    req.add_header("content-type", "application/json")
    if token:
        req.add_header("authorization", f"Bearer {token}")
    if origin:
        req.add_header("origin", origin)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw = r.read()
            return r.status, (json.loads(raw) if raw else None), dict(r.headers)
    except urllib.error.HTTPError as e:
        raw = e.read()
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        return e.code, parsed, dict(e.headers)


def dumps(v):
    return json.dumps(v, ensure_ascii=False)


def delta(v):
    return "event: delta\ndata: " + dumps(v) + "\n\n"


def message(id, role, text, *, parent=None, turn=None, status="finished_successfully",
            end_turn=None, model=None, hidden=False):
    meta = {}
    if hidden:
        meta["is_visually_hidden_from_conversation"] = True
    if parent:
        meta["parent_id"] = parent
    if turn:
        meta["turn_exchange_id"] = turn
    if model:
        meta["model_slug"] = model
    return {
        "id": id, "author": {"role": role, "name": None, "metadata": {}},
        "create_time": None, "update_time": None,
        "content": {"content_type": "text", "parts": [text]},
        "status": status, "end_turn": end_turn, "weight": 1.0, "metadata": meta,
        "recipient": "all", "channel": None,
    }


class Turn:
    """One page turn: the request body and the answer stream, cut in pieces."""

    def __init__(self, text, answer, model, pieces, conv=None, files=(), images=()):
        self.files = list(files)  # the page's uploaded files: {"file_id", "name", "size"}
        self.images = list(images)  # the answer's generated images: (file id, PNG bytes)
        self.conv = conv or str(uuid.uuid4())
        self.user = str(uuid.uuid4())
        self.turn = str(uuid.uuid4())
        self.assistant = str(uuid.uuid4())
        self.text, self.answer, self.model = text, answer, model
        self.pieces = pieces
        self.continued = conv is not None

    def request_body(self):
        """The page's conversation request; with files, `multimodal_text` with an asset
        pointer part per file and `metadata.attachments`, as chatgpt.com sends it."""
        content = {"content_type": "text", "parts": [self.text]}
        metadata = {}
        if self.files:
            pointers = [{"content_type": "image_asset_pointer", "size_bytes": f["size"],
                         "asset_pointer": "file-service://" + f["file_id"], "width": 1, "height": 1}
                        for f in self.files]
            content = {"content_type": "multimodal_text", "parts": pointers + [self.text]}
            metadata = {"attachments": [{"id": f["file_id"], "name": f["name"], "size": f["size"]}
                                        for f in self.files]}
        return dumps({
            "action": "next",
            "messages": [{"id": self.user, "author": {"role": "user"},
                          "content": content, "metadata": metadata}],
            "parent_message_id": "client-created-root",
            "model": "auto",
            **({"conversation_id": self.conv} if self.continued else {}),
        })

    def head(self):
        root = lambda m, **k: {"message": m, "conversation_id": self.conv, "error": None, **k}
        system = message(str(uuid.uuid4()), "system", "", hidden=True, end_turn=True)
        user = message(self.user, "user", self.text, turn=self.turn)
        parent = self.user
        pictures = ""
        if self.images:
            # The image_gen tool's message, whole in one add op, before the final answer
            # (the page's format: h29out-contract §1).
            tool = message(str(uuid.uuid4()), "tool", None, parent=self.user, turn=self.turn)
            tool["author"]["name"] = "image_gen"
            tool["content"] = {"content_type": "multimodal_text", "parts": [
                {"content_type": "image_asset_pointer", "asset_pointer": "sediment://" + fid,
                 "size_bytes": len(data), "width": 64, "height": 64,
                 "metadata": {"generation": {"gen_id": "gen-" + fid[-6:]}}}
                for fid, data in self.images]}
            parent = tool["id"]
            pictures = delta({"v": root(tool), "c": 2})
        start = message(self.assistant, "assistant", "", parent=parent, turn=self.turn,
                        status="in_progress", model=self.model)
        return ('event: delta_encoding\ndata: "v1"\n\n'
                + delta({"p": "", "o": "add", "v": root(system), "c": 0})
                + delta({"v": root(user), "c": 1})
                + pictures
                + delta({"v": root(start), "c": 3 if self.images else 2}))

    def answer_pieces(self):
        n = max(1, self.pieces)
        step = max(1, len(self.answer) // n + (1 if len(self.answer) % n else 0))
        parts = [self.answer[i:i + step] for i in range(0, len(self.answer), step)]
        out = [delta({"p": "/message/content/parts/0", "o": "append", "v": parts[0]})]
        out += [delta({"v": p}) for p in parts[1:]]
        return out

    def tail(self):
        patch = [{"p": "/message/status", "o": "replace", "v": "finished_successfully"},
                 {"p": "/message/end_turn", "o": "replace", "v": True},
                 {"p": "/message/metadata", "o": "append",
                  "v": {"finish_details": {"type": "stop"}, "is_complete": True}}]
        return (delta({"p": "", "o": "patch", "v": patch})
                + "data: " + dumps({"type": "message_stream_complete", "conversation_id": self.conv})
                + "\n\ndata: [DONE]\n\n")


class Player:
    """The test extension: pairs with `client_token`, then plays sends one at a time."""

    def __init__(self, port, client_token):
        self.port = port
        self.grants = 0
        self.granted = []
        self.destinations = {}  # op id → the destination `next` handed out with it
        self.files = {}  # op id → the files `next` handed out with it, as the page uploaded them
        status, code, _ = http(port, "POST", "/v1/pairing-code", {}, token=client_token)
        assert status == 200, code
        status, paired, _ = http(port, "POST", "/v1/pair", {"code": code["code"]}, origin=ORIGIN)
        assert status == 200, paired
        self.token = paired["token"]
        self.lease_id = None
        self.tab, self.site = "tab-1", "chatgpt"
        self.claude_turns = {}  # op id → the claude.ai turn forwarded for it (its page-chosen ids)

    def call(self, path, body, timeout=BOUND_S):
        return http(self.port, "POST", path, body, token=self.token, origin=ORIGIN, timeout=timeout)

    def lease(self, tab=None, conversation=None, site=None):
        """Binds `tab` of `site` ("chatgpt" | "claude"; None for either: the one leased
        before, at first tab-1 of chatgpt), showing `conversation` (None: a new chat). The
        page traffic forwarded after is that site's."""
        self.tab, self.site = tab or self.tab, site or self.site
        status, body, _ = self.call("/v1/ext/lease", {"tab_id": self.tab, "conversation_id": conversation,
                                                      "site": self.site})
        assert status == 200, body
        self.lease_id = body["lease_id"]
        return self.lease_id

    def next(self, wait_ms=25_000):
        """The next send claimed for this lease, or None."""
        status, body, _ = self.call("/v1/ext/next", {"lease_id": self.lease_id, "wait_ms": wait_ms},
                                    timeout=wait_ms / 1000 + BOUND_S)
        assert status == 200, body
        if body["send"]:
            op = body["send"]["op_id"]
            self.destinations[op] = body["send"].get("destination")
            self.files[op] = [self.fetched(op, i, f) for i, f in enumerate(body["send"].get("attachments") or [])]
        return body["send"]

    def fetched(self, op_id, i, f):
        """Fetches a handed file's bytes as the extension does (checked against its
        address) and "uploads" it to the page: the page's file id, name and size."""
        url = f"http://127.0.0.1:{self.port}/v1/ext/attachments/{f['sha256']}?lease_id={self.lease_id}"
        req = urllib.request.Request(url, headers={"Authorization": f"Bearer {self.token}", "Origin": ORIGIN})
        with urllib.request.urlopen(req, timeout=BOUND_S) as r:
            data = r.read()
        assert hashlib.sha256(data).hexdigest() == f["sha256"], "the bytes handed are the file's"
        return {"file_id": f"file-{op_id[-8:]}-{i}", "name": f["name"], "size": len(data)}

    def confirmed(self, op_id):
        """What the tab shows when it asks for the grant: the send's destination, as the
        extension confirms it after going there, and the files the page showed uploaded
        (docs/bridge-api.md, `confirmed`)."""
        d = self.destinations.get(op_id) or {}
        return {"conversation_id": d.get("conversation_id"), "project_id": d.get("project_id"),
                "model": d.get("model"), "effort": d.get("effort"),
                "attachments": self.files.get(op_id) or []}

    def grant(self, op_id):
        """Asks for the dispatch grant; a grant is where the page's POST happens."""
        status, body, _ = self.call("/v1/ext/dispatch", {"lease_id": self.lease_id, "op_id": op_id,
                                                         "confirmed": self.confirmed(op_id)})
        assert status == 200 and body["granted"] is True, (status, body)
        self.grants += 1
        self.granted.append(op_id)

    def observe(self, obs):
        status, body, _ = self.call("/v1/ext/observations", {"lease_id": self.lease_id, **obs})
        assert status == 200, body
        return body

    def page_turn(self, send, answer, model="gpt-sl-test", pieces=4, between=None, images=()):
        """Forwards the page's request and its answer stream for `send` (in the send's
        conversation when it names one, else a new one); `between(i)` runs before answer
        piece i (a test's hook to pace the stream). A claude.ai tab forwards claude.ai's
        completion and event stream instead (`claude_turn`)."""
        if self.site == "claude":
            return self.claude_turn(send, answer, model, pieces, between)
        op, sid = send["op_id"], str(uuid.uuid4())
        t = Turn(send["text"], answer, model, pieces, send.get("conversation_id"),
                 self.files.get(op, ()), images)
        self.observe({"op_id": op, "kind": "request", "stream_id": sid, "url": URL,
                      "body": t.request_body()})
        seq = 0
        for i, chunk in enumerate([t.head()] + t.answer_pieces() + [t.tail()]):
            if between and 1 <= i <= len(t.answer_pieces()):
                between(i)
            self.observe({"op_id": op, "kind": "stream_chunk", "stream_id": sid, "seq": seq,
                          "chunk": chunk})
            seq += 1
        self.observe({"op_id": op, "kind": "stream_end", "stream_id": sid})

    def claude_turn(self, send, answer, model, pieces, between=None):
        """A claude.ai tab's traffic for `send`: the page's completion request (its receipt:
        the page-chosen message ids), then the event stream in pieces, `between(i)` before
        answer piece i."""
        op, sid = send["op_id"], str(uuid.uuid4())
        conversation = (send.get("destination") or {}).get("conversation_id")
        t = ClaudeTurn(send["text"], answer, conversation, model=model, pieces=pieces)
        self.claude_turns[op] = t
        self.observe({"op_id": op, "kind": "request", "stream_id": sid, "url": t.url(),
                      "body": t.request_body(), "status": 200})
        n = len(t.answer_pieces())
        for seq, chunk in enumerate(t.chunks()):
            if between and 1 <= seq <= n:
                between(seq)
            self.observe({"op_id": op, "kind": "stream_chunk", "stream_id": sid, "seq": seq,
                          "chunk": chunk})
        self.observe({"op_id": op, "kind": "stream_end", "stream_id": sid})

    def error_turn(self, send, error, code=None):
        """Forwards the page's request for `send` and a stream the page ends with its own
        error event and no answer (the shape of tests/fixtures/chatgpt/stream_delta_error.sse;
        with `code`, the error's code, as stream_delta_usage_limit.sse's `usage_limit_reached`)."""
        op, sid = send["op_id"], str(uuid.uuid4())
        t = Turn(send["text"], "", "gpt-sl-test", 1)
        self.observe({"op_id": op, "kind": "request", "stream_id": sid, "url": URL,
                      "body": t.request_body()})
        err = {"message": error, **({"code": code} if code else {})}
        chunk = (t.head() + "data: " + dumps({"type": "error", "error": err})
                 + "\n\ndata: [DONE]\n\n")
        self.observe({"op_id": op, "kind": "stream_chunk", "stream_id": sid, "seq": 0,
                      "chunk": chunk})
        self.observe({"op_id": op, "kind": "stream_end", "stream_id": sid})

    def answer_next(self, answer, model="gpt-sl-test", pieces=4, before_turn=None, between=None,
                    images=()):
        """Takes the next send, is granted it, and answers it (with generated `images`:
        (file id, bytes), handed to the owner as the extension fetches them); returns the send."""
        send = self.next()
        assert send is not None, "a send was handed out"
        self.grant(send["op_id"])
        if before_turn:
            before_turn(send)
        self.page_turn(send, answer, model, pieces, between, images)
        if images:
            self.hand_artifacts(send["op_id"], dict(images))
        return send

    def hand_artifacts(self, op_id, images):
        """As the extension does for a tab showing the conversation (h29out-contract §2):
        asks which artifacts are wanted, and posts the bytes of each of `op_id`'s it has
        ({file id: bytes}, as the page's download route gave them). Returns the statuses."""
        path = f"/v1/ext/artifacts?lease_id={self.lease_id}&wait_ms=5000"
        status, body, _ = http(self.port, "GET", path, token=self.token, origin=ORIGIN)
        assert status == 200, body
        done = []
        for a in body["artifacts"]:
            if a["op_id"] != op_id or a["file_id"] not in images:
                continue
            url = (f"http://127.0.0.1:{self.port}/v1/ext/artifacts/{op_id}/{a['n']}"
                   f"?lease_id={self.lease_id}&name={a['file_id']}.png")
            req = urllib.request.Request(url, data=images[a["file_id"]], method="POST", headers={
                "Authorization": f"Bearer {self.token}", "Origin": ORIGIN, "Content-Type": "image/png"})
            with urllib.request.urlopen(req, timeout=BOUND_S) as r:
                done.append(r.status)
        return done

    def in_thread(self, fn, *args, **kwargs):
        """Runs `fn` in a thread; the thread's join() re-raises nothing, so read `.error`."""
        box = {"error": None, "value": None}

        def run():
            try:
                box["value"] = fn(*args, **kwargs)
            except BaseException as e:  # reported by the test that joins
                box["error"] = e
        th = threading.Thread(target=run, daemon=True)
        th.box = box
        th.start()
        return th


class Halted(Exception):
    """The page was stopped while it paced an answer."""


class Page:
    """The page as the extension would drive it: every send the lease is handed is granted
    (one POST of the page each, counted in `player.grants`) and, unless `answer` is None,
    answered: the page's request (the send's receipt) and the stream's head at once, the
    answer's text `delay_s` later (a long turn thinks before it writes) — until `stop()`.
    A send the door should never have queued (a client's retry taken for a new message) is
    therefore clicked too, as the real extension would, and shows in the count. Survives an owner restart on the same port: a
    refused connection is retried and the tab leased again. `on_grant(send)` runs after
    each grant; `granted` is set at the first."""

    def __init__(self, player, answer, delay_s=0.0, model="gpt-sl-test", pieces=4, on_grant=None):
        self.player, self.answer, self.delay_s = player, answer, delay_s
        self.model, self.pieces, self.on_grant = model, pieces, on_grant
        self.granted = threading.Event()
        self.halt = threading.Event()
        self.errors = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.halt.is_set():
            try:
                self._one()
            except Halted:
                return
            except BaseException as e:  # an owner killed under it: lease again once it is back
                self.errors.append(e)
                self.halt.wait(0.2)
                self._lease_again()

    def _lease_again(self):
        try:
            self.player.lease()
        except BaseException as e:
            self.errors.append(e)

    def _one(self):
        send = self.player.next(wait_ms=500)
        if send is None:
            return
        self.player.grant(send["op_id"])
        self.granted.set()
        if self.on_grant:
            self.on_grant(send)
        if self.answer is None:
            return
        self.player.page_turn(send, self.answer, self.model, self.pieces, between=self._pace)

    def _pace(self, piece):
        """The answer's first piece comes `delay_s` after the page's request (the receipt)."""
        if piece == 1 and self.halt.wait(self.delay_s):
            raise Halted()

    def stop(self):
        self.halt.set()
        self.thread.join(BOUND_S)
        return self


def main(argv):
    """`player.py --page PORT PROFILE ANSWER DELAY_S [SITE]` plays a `Page` of a SITE tab
    (chatgpt, the default, or claude; ANSWER `-`: grant only) until killed, printing
    `{"ready": true}`, then `{"granted": op}` at each grant."""
    assert argv[1] == "--page", __doc__
    port, profile, answer, delay = int(argv[2]), argv[3], argv[4], float(argv[5])
    site = argv[6] if len(argv) > 6 else "chatgpt"
    p = Player(port, open(f"{profile}/client.token").read().strip())
    p.lease(site=site)
    said = lambda **k: print(json.dumps(k), flush=True)  # noqa: E731
    model = CLAUDE_MODEL if site == "claude" else "gpt-sl-test"
    page = Page(p, None if answer == "-" else answer, delay, model=model, pieces=5,
                on_grant=lambda send: said(granted=send["op_id"]))
    said(ready=True)
    page.thread.join()


if __name__ == "__main__":
    main(sys.argv)
