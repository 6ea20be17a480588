"""`sendledger mcp` driven by the official Python MCP SDK against a real `sendledger serve`
child, with the browser extension played over HTTP. Each test is named after its rule."""

import re
import json
import os
import signal
import subprocess
from pathlib import Path

import anyio
import pytest

from mcp import Client, StdioServerParameters
from mcp_harness import BIN, Player, Serve, in_background, mcp_client

TOOLS = {"send_message", "get_send", "list_uncertain", "stop"}
STATUSES = {"completed", "pending", "uncertain", "rejected", "stopped", "page_error"}
NO_OWNER = "start the sendledger app or `sendledger serve`"


def run(fn):
    """Runs an async test body."""
    return anyio.run(fn)


def text_of(result) -> str:
    return " ".join(getattr(c, "text", "") for c in result.content)


async def call(client, tool, **arguments):
    return await client.call_tool(tool, arguments)


def ok(result) -> dict:
    """A successful tool result's structured content."""
    assert not result.is_error, f"a successful result, got an error: {text_of(result)}"
    assert result.structured_content is not None, "structured content"
    return result.structured_content


def error_text(result) -> str:
    assert result.is_error, f"an error result, got {result.structured_content}"
    return text_of(result)


# --- tools, schemas, annotations ---------------------------------------------------------

@pytest.mark.parametrize("mode, revision", [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_four_tools_are_listed_with_input_and_output_schemas_and_true_annotations(profile, mode, revision):
    async def body():
        async with mcp_client(profile, mode=mode) as client:
            assert client.protocol_version == revision, "the current revision and the previous one"
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == TOOLS, "no tool resumes or decides an uncertain send"
            for t in tools.values():
                assert t.input_schema["type"] == "object", t.name
                assert t.output_schema and t.output_schema["type"] == "object", t.name
                assert t.description and len(t.description) > 80, f"{t.name} tells a model how to act"
            for name in ("send_message", "get_send"):
                out = tools[name].output_schema
                assert {"status", "send_id", "message", "retry_safe"} <= set(out["required"]), name
                assert "answer" in out["properties"] and "conversation_id" in out["properties"]
                assert set(_enum(out, "status")) == STATUSES, name
            assert "timeline" in tools["get_send"].output_schema["properties"]
            send_in = tools["send_message"].input_schema
            assert send_in["required"] == ["text"]
            assert {"conversation_id", "idempotency_key", "wait_seconds"} <= set(send_in["properties"])
            assert tools["send_message"].input_schema.get("additionalProperties") is False
            hints = {n: t.annotations for n, t in tools.items()}
            assert (hints["send_message"].read_only_hint, hints["send_message"].destructive_hint,
                    hints["send_message"].idempotent_hint, hints["send_message"].open_world_hint) \
                == (False, False, False, True), "a send without a key is a new send: not idempotent"
            for n in ("get_send", "list_uncertain"):
                assert (hints[n].read_only_hint, hints[n].idempotent_hint, hints[n].open_world_hint) \
                    == (True, True, False), n
            assert (hints["stop"].read_only_hint, hints["stop"].destructive_hint,
                    hints["stop"].idempotent_hint) == (False, True, True)
            assert "uncertain" in client.instructions
    run(body)


def _enum(schema, prop):
    p = schema["properties"][prop]
    if "enum" in p:
        return p["enum"]
    ref = p.get("$ref") or p["allOf"][0]["$ref"]
    target = schema[ref.split("/")[1]][ref.split("/")[2]]
    return target.get("enum") or [v["const"] for v in target["oneOf"]]


def test_the_printed_client_config_launches_a_server_that_reaches_the_owner(serve):
    printed = subprocess.run([BIN, "--profile", str(serve.profile), "mcp", "--config"],
                             capture_output=True, text=True, timeout=30, check=True)
    entry = json.loads(printed.stdout)["mcpServers"]["sendledger"]
    assert Path(entry["command"]).is_absolute() and entry["args"][-1] == "mcp", entry

    async def body():
        params = StdioServerParameters(command=entry["command"], args=entry["args"])
        async with Client(params) as client:
            assert {t.name for t in (await client.list_tools()).tools} == TOOLS
            listed = ok(await client.call_tool("list_uncertain", {}))
            assert listed["count"] == 0, "it reached the running owner"
    run(body)


# --- the answer ----------------------------------------------------------------------------

def test_a_send_waits_for_and_returns_chatgpts_answer(serve, player):
    lease = player.lease()
    page = in_background(player.play_one, lease, "Three columns: date, description, amount.")

    async def body():
        async with mcp_client(serve.profile) as client:
            r = ok(await call(client, "send_message", text="Name three ledger columns.",
                              idempotency_key="columns-1", wait_seconds=30))
            assert r["status"] == "completed", r
            assert r["answer"] == "Three columns: date, description, amount."
            assert r["send_id"] == "mcp-columns-1", "the key is the operation id"
            assert r["retry_safe"] is False, "it went out: sending again would be a second message"
            assert r["conversation_id"], "the conversation it went into"
            looked = ok(await call(client, "get_send", send_id=r["send_id"]))
            assert looked["status"] == "completed" and looked["answer"] == r["answer"]
            assert [e["to"] for e in looked["timeline"]][-1] == "completed"
    run(body)
    assert page.result()["op_id"] == "mcp-columns-1"
    assert player.granted == ["mcp-columns-1"], "clicked once"


def test_a_pending_send_is_settled_by_get_send_with_a_wait(serve, player):
    async def body():
        async with mcp_client(serve.profile) as client:
            first = ok(await call(client, "send_message", text="Later, please.",
                                  idempotency_key="later-1", wait_seconds=0))
            assert first["status"] == "pending" and first["retry_safe"] is False, first
            assert "get_send" in first["message"]
            page = in_background(player.play_one, player.lease(), "Here it is.")
            later = ok(await call(client, "get_send", send_id=first["send_id"], wait_seconds=30))
            assert later["status"] == "completed" and later["answer"] == "Here it is.", later
            page.result()
    run(body)


def test_a_waiting_call_reports_progress_and_never_the_text(serve, player):
    secret = "Progress text that stays private."
    notes = []

    async def on_progress(progress, total, message):
        notes.append((progress, total, message))

    async def body():
        async with mcp_client(serve.profile) as client:
            queued = ok(await call(client, "send_message", text=secret, idempotency_key="prog",
                                   wait_seconds=0))
            lease = player.lease()
            send = player.take_and_click(lease)  # clicked; no answer yet
            r = ok(await client.call_tool("get_send", {"send_id": queued["send_id"], "wait_seconds": 3},
                                          progress_callback=on_progress))
            assert r["status"] == "pending", "no answer came within the wait"
            player.answer(lease, send, "Done.")
            r = ok(await call(client, "get_send", send_id=queued["send_id"], wait_seconds=10))
            assert r["status"] == "completed", r
    run(body)
    assert notes, "a wait that ends unanswered was told as progress"
    assert notes[-1][1:] == (3, "the send is dispatched"), notes
    assert notes[-1][0] >= 2.5, "progress counts the seconds waited"
    assert not [n for n in notes if secret in (n[2] or "")], "no text in a notification"


# --- idempotency ---------------------------------------------------------------------------

def test_the_same_idempotency_key_twice_is_one_send(serve, player):
    lease = player.lease()
    page = in_background(player.play_one, lease, "Once.")

    async def body():
        async with mcp_client(serve.profile) as client:
            a = ok(await call(client, "send_message", text="Say it once.", idempotency_key="once",
                              wait_seconds=30))
            b = ok(await call(client, "send_message", text="Say it once.", idempotency_key="once",
                              wait_seconds=5))
            assert a["status"] == b["status"] == "completed"
            assert a["send_id"] == b["send_id"] == "mcp-once"
            assert "nothing new was sent" in b["message"]
            changed = await call(client, "send_message", text="Say it twice.", idempotency_key="once",
                                 wait_seconds=0)
            assert "different message" in error_text(changed), "a reused key with other text"
    run(body)
    page.result()
    assert [s["op_id"] for s in serve.sends()] == ["mcp-once"], "one send in the ledger"
    assert player.next(lease, 500) is None, "nothing more to click"
    assert player.granted == ["mcp-once"]


def test_a_lost_answer_is_pending_with_its_id_never_an_error_and_the_key_finds_the_one_send(serve):
    async def body():
        async with mcp_client(serve.profile, env={"SENDLEDGER_CLIENT_TIMEOUT_MS": "1500"}) as client:
            os.kill(serve.proc.pid, signal.SIGSTOP)  # the owner is stuck: no answer comes
            try:
                r = ok(await call(client, "send_message", text="Stuck owner.", idempotency_key="stuck",
                                  wait_seconds=0))
            finally:
                os.kill(serve.proc.pid, signal.SIGCONT)
            assert (r["status"], r["retry_safe"], r["send_id"]) == ("pending", False, "mcp-stuck"), r
            assert "may or may not be recorded" in r["message"] and "get_send" in r["message"]
            again = ok(await call(client, "send_message", text="Stuck owner.", idempotency_key="stuck",
                                  wait_seconds=0))
            assert again["send_id"] == "mcp-stuck" and again["status"] == "pending", again
    run(body)
    assert [s["op_id"] for s in serve.sends()] == ["mcp-stuck"], "one send, however the answers went"


# --- a crash after the grant ---------------------------------------------------------------

def test_sigkill_after_the_grant_is_uncertain_as_a_successful_result_and_the_key_never_sends_again(profile):
    serve = Serve(profile)
    player = Player(serve)
    lease = player.lease()

    async def body():
        nonlocal serve
        async with mcp_client(profile) as client:
            queued = ok(await call(client, "send_message", text="Transfer the notes.",
                                   idempotency_key="notes-7", wait_seconds=0))
            assert queued["status"] == "pending"
            send = player.take_and_click(lease)
            assert send["op_id"] == "mcp-notes-7"
            serve.kill()
            serve = Serve(profile)  # recovery: dispatched -> uncertain
            looked = await call(client, "get_send", send_id="mcp-notes-7")
            r = ok(looked)  # isError false: MCP clients retry tool errors
            assert r["status"] == "uncertain" and r["retry_safe"] is False, r
            assert "Do NOT send it again" in r["message"] and "ask the user" in r["message"]
            again = ok(await call(client, "send_message", text="Transfer the notes.",
                                  idempotency_key="notes-7", wait_seconds=2))
            assert again["status"] == "uncertain" and again["send_id"] == "mcp-notes-7", again
            listed = ok(await call(client, "list_uncertain"))
            assert [s["send_id"] for s in listed["sends"]] == ["mcp-notes-7"]
            assert listed["sends"][0]["text"] == "Transfer the notes."
    try:
        run(body)
        assert [s["op_id"] for s in serve.sends()] == ["mcp-notes-7"], "no second send"
        player.serve = serve
        assert player.next(player.lease(), 1_000) is None, "nothing new to click"
        assert player.granted == ["mcp-notes-7"], "clicked once, before the crash"
    finally:
        serve.close()


def test_an_owner_killed_during_the_wait_answers_the_last_known_status_never_an_error(profile):
    serve = Serve(profile)
    box = {}

    async def body():
        async with mcp_client(profile) as client:
            async def send():
                box["r"] = await call(client, "send_message", text="Wait for me.",
                                      idempotency_key="wait-kill", wait_seconds=60)
            async with anyio.create_task_group() as tg:
                tg.start_soon(send)
                with anyio.fail_after(30):
                    while serve.request("GET", "/v1/sends/mcp-wait-kill", token=serve.client_token())[0] != 200:
                        await anyio.sleep(0.05)
                serve.kill()  # mid-wait
    run(body)
    r = ok(box["r"])
    assert (r["status"], r["retry_safe"], r["send_id"]) == ("pending", False, "mcp-wait-kill"), r
    assert "stopped answering" in r["message"] and "Do not send it again" in r["message"], r


# --- the brake -----------------------------------------------------------------------------

def test_stop_through_the_tool_means_nothing_more_is_clicked(serve, player):
    lease = player.lease()

    async def body():
        async with mcp_client(serve.profile) as client:
            ids = []
            for n in range(3):
                r = ok(await call(client, "send_message", text=f"Item {n}.",
                                  idempotency_key=f"item-{n}", wait_seconds=0))
                ids.append(r["send_id"])
            held = player.next(lease, 5_000)  # claimed: typed, not yet clicked
            assert held["op_id"] == ids[0]
            stopped = ok(await call(client, "stop"))
            assert sorted(stopped["stopped"]) == sorted(ids), stopped
            status, body_ = player.dispatch(lease, held["op_id"])
            assert status == 409, f"no grant after Stop: {status} {body_}"
            for i in ids:
                r = ok(await call(client, "get_send", send_id=i))
                assert r["status"] == "stopped" and r["retry_safe"] is False, r
            late = await call(client, "send_message", text="After the stop.",
                              idempotency_key="late", wait_seconds=0)
            assert "pressed Stop" in error_text(late) and "nothing was queued" in error_text(late)
    run(body)
    assert player.granted == [], "nothing was clicked"
    assert len(serve.sends()) == 3, "the refused send was not queued"
    status, _ = player.call("POST", "/v1/ext/lease", {"tab_id": "tab-2"})
    assert status == 409, "no new lease while stopped"


# --- no owner, bad input -------------------------------------------------------------------

def test_with_no_owner_every_tool_says_start_the_app_and_nothing_is_written(profile):
    async def body():
        async with mcp_client(profile) as client:
            for tool, args in [("send_message", {"text": "Hello?", "idempotency_key": "h"}),
                               ("get_send", {"send_id": "mcp-h"}), ("list_uncertain", {}),
                               ("stop", {})]:
                t = error_text(await client.call_tool(tool, args))
                assert NO_OWNER in t, f"{tool}: {t}"
            t = error_text(await call(client, "send_message", text="Hello?"))
            assert "Nothing was sent" in t and "safe" in t, t
    run(body)
    assert not (profile / "ledger.sqlite3").exists(), "the MCP server never opens the ledger"


def test_an_owner_that_died_leaves_a_stale_bridge_file_and_the_tools_say_start_the_app(profile):
    serve = Serve(profile)
    serve.kill()  # bridge.json stays behind, naming a dead process
    assert (profile / "bridge.json").exists()

    async def body():
        async with mcp_client(profile) as client:
            t = error_text(await call(client, "send_message", text="Anyone?", idempotency_key="stale"))
            assert NO_OWNER in t and "Nothing was sent" in t, t
    run(body)
    serve = Serve(profile)
    try:
        assert serve.sends() == [], "nothing was queued while no owner ran"
    finally:
        serve.close()


def test_bad_input_is_an_error_that_sends_nothing(serve):
    async def body():
        async with mcp_client(serve.profile) as client:
            for args in [{"text": "   "}, {"text": "x" * 70_000},
                         {"text": "hi", "wait_seconds": 601},
                         {"text": "hi", "idempotency_key": "a b"},
                         {"text": "hi", "colour": "red"}]:
                t = error_text(await client.call_tool("send_message", args))
                assert t.startswith("Nothing was sent") and "safe" in t, f"{args.keys()}: {t}"
                # The owner's reason is a sentence of its own, whatever punctuation it had.
                assert ". Fix " in t and ": . Fix" not in t, f"{args.keys()}: {t}"
            t = error_text(await call(client, "get_send", send_id="mcp-never"))
            assert "nothing was ever sent" in t, t
    run(body)
    assert serve.sends() == [], "nothing was queued"


# --- cancel and disconnect -----------------------------------------------------------------

def test_a_client_that_cancels_or_disconnects_mid_call_neither_unsends_nor_stops_the_send(serve, player):
    lease = player.lease()

    async def queued(op_id):
        """Waits (bounded) until the owner has recorded `op_id`."""
        with anyio.fail_after(30):
            while serve.request("GET", f"/v1/sends/{op_id}", token=serve.client_token())[0] != 200:
                await anyio.sleep(0.05)

    async def cancel_then_disconnect():
        async with mcp_client(serve.profile) as client:
            async with anyio.create_task_group() as tg:
                tg.start_soon(client.call_tool, "send_message",
                              {"text": "Keep going.", "idempotency_key": "go-1", "wait_seconds": 120})
                await queued("mcp-go-1")
                tg.cancel_scope.cancel()  # the client cancels the call (notifications/cancelled)
            assert ok(await call(client, "get_send", send_id="mcp-go-1"))["status"] == "pending"
        async with mcp_client(serve.profile) as client:
            async with anyio.create_task_group() as tg:
                tg.start_soon(client.call_tool, "send_message",
                              {"text": "Keep going too.", "idempotency_key": "go-2", "wait_seconds": 120})
                await queued("mcp-go-2")
                tg.cancel_scope.cancel()
        # leaving the block closed the client's pipes: its server is gone mid-wait

    run(cancel_then_disconnect)
    for text in ("Keep going.", "Keep going too."):
        send = player.play_one(lease, f"Answer to {text}", wait_ms=5_000)
        assert send and send["text"] == text, "the cancelled send still goes out"

    async def look():
        async with mcp_client(serve.profile) as client:
            for key in ("go-1", "go-2"):
                r = ok(await call(client, "get_send", send_id=f"mcp-{key}", wait_seconds=10))
                assert r["status"] == "completed", r
    run(look)
    assert serve.client("GET", "/v1/status")["status"]["gate_closed"] is False, "nothing stopped"
    assert player.granted == ["mcp-go-1", "mcp-go-2"]


# --- custody of the ledger and the text ----------------------------------------------------

def test_the_mcp_server_never_opens_the_ledger_and_logs_no_text(serve, player, tmp_path):
    secret = "The vault code is 4471."
    lease = player.lease()
    page = in_background(player.play_one, lease, "Noted.")

    async def body():
        async with mcp_client(serve.profile) as client:
            ok(await call(client, "send_message", text=secret, idempotency_key="vault", wait_seconds=30))
            ok(await call(client, "get_send", send_id="mcp-vault"))
            pids = _mcp_pids(serve.profile)
            assert pids, "the MCP server runs"
            for pid in pids:
                opened = [os.readlink(f) for f in Path(f"/proc/{pid}/fd").iterdir() if _link(f)]
                assert not [f for f in opened if "ledger.sqlite3" in f], f"mcp opened the ledger: {opened}"
    run(body)
    page.result()
    assert secret not in serve.log(), "the owner logs no text"
    mcp_log = (serve.profile.parent / "mcp.log").read_text()
    assert secret not in mcp_log, "the MCP server logs no text, even at SENDLEDGER_LOG=trace"
    assert serve.client_token() not in mcp_log, "nor the token"


def _link(f: Path) -> bool:
    try:
        os.readlink(f)
        return True
    except OSError:
        return False


def _mcp_pids(profile: Path) -> list[int]:
    out = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if str(profile).encode() in argv and b"mcp" in argv:
            out.append(int(proc.name))
    return out


# --- where a send goes (issue 27) ---------------------------------------------------------

def test_send_message_arguments_name_the_destination_and_two_places_are_refused(serve):
    async def body():
        async with mcp_client(serve.profile) as client:
            r = ok(await call(client, "send_message", text="Into that chat.",
                              idempotency_key="dest-1", wait_seconds=0,
                              conversation_id="https://chatgpt.com/c/conv-mcp",
                              model="gpt-5-2-thinking", effort="extended"))
            assert r["status"] == "pending", r
            d = serve.show(r["send_id"])["destination"]
            assert (d["kind"], d["conversation_id"], d["model"], d["effort"], d["chosen_by"]) == \
                ("conversation", "conv-mcp", "gpt-5-2-thinking", "extended", "send"), d
            p = ok(await call(client, "send_message", text="Into a Project.",
                              idempotency_key="dest-2", wait_seconds=0, project_id="g-p-0123abcd"))
            assert serve.show(p["send_id"])["destination"]["project_id"] == "g-p-0123abcd"
            said = error_text(await call(client, "send_message", text="Two places.",
                                         idempotency_key="dest-3", wait_seconds=0,
                                         conversation_id="conv-mcp", new_chat=True))
            assert "one place" in said, said
    run(body)
    assert sorted(s["op_id"] for s in serve.sends()) == ["mcp-dest-1", "mcp-dest-2"], \
        "the refused one wrote nothing"


def test_send_message_takes_a_site_and_an_unknown_site_is_refused_naming_the_known_ones(serve):
    conv = "7b2e4d10-55aa-4c3e-9f01-2d6c8e7a9b34"

    async def body():
        async with mcp_client(serve.profile) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert "site" in tools["send_message"].input_schema["properties"], "the schema offers site"
            assert "claude" in tools["send_message"].description, "the description says how to pick Claude"
            r = ok(await call(client, "send_message", text="Into a Claude chat.",
                              idempotency_key="site-1", wait_seconds=0, site="claude",
                              conversation_id=f"https://claude.ai/chat/{conv}"))
            assert r["status"] == "pending", r
            d = serve.show(r["send_id"])["destination"]
            assert (d["site"], d["conversation_id"]) == ("claude", conv), d
            said = error_text(await call(client, "send_message", text="Nowhere.",
                                         idempotency_key="site-2", wait_seconds=0, site="gemini"))
            assert said.startswith("Nothing was sent") and "chatgpt, claude" in said, said
    run(body)
    assert [s["op_id"] for s in serve.sends()] == ["mcp-site-1"], "the refused one wrote nothing"


def test_a_claude_send_whose_answer_was_lost_is_retried_with_its_key_into_one_send_and_one_completion_post(serve, player):
    text, answer = "Name a river that freezes over.", "The Lena freezes over every winter."
    send = {"text": text, "idempotency_key": "claude-lost", "site": "claude", "new_chat": True}

    async def body():
        async with mcp_client(serve.profile, env={"SENDLEDGER_CLIENT_TIMEOUT_MS": "1500"}) as client:
            os.kill(serve.proc.pid, signal.SIGSTOP)  # the owner is stuck: the answer is lost
            try:
                lost = ok(await call(client, "send_message", wait_seconds=0, **send))
            finally:
                os.kill(serve.proc.pid, signal.SIGCONT)
            assert (lost["status"], lost["retry_safe"], lost["send_id"]) == \
                ("pending", False, "mcp-claude-lost"), lost
            assert "may or may not be recorded" in lost["message"], lost["message"]
            lease = player.lease("tab-claude", site="claude")
            page = in_background(player.play_one, lease, answer)
            # The client's retry: the same key and message, now waiting for the answer.
            again = ok(await call(client, "send_message", wait_seconds=30, **send))
            assert (again["status"], again["send_id"]) == ("completed", "mcp-claude-lost"), again
            assert again["answer"] == answer
            assert "nothing new was sent" in again["message"], again["message"]
            assert page.result()["op_id"] == "mcp-claude-lost"
            assert player.next(lease, 500) is None, "nothing more for the claude tab to click"
    run(body)
    assert player.granted == ["mcp-claude-lost"], "one completion POST of the page"
    assert [s["op_id"] for s in serve.sends()] == ["mcp-claude-lost"], "one send"
    shown = serve.show("mcp-claude-lost")
    assert shown["destination"]["site"] == "claude", shown["destination"]
    turn = player.claude_turns["mcp-claude-lost"]
    assert shown["send"]["receipt"] == {
        "conversation_id": turn.conversation, "user_message_id": turn.human,
        "turn_id": turn.assistant}, "the receipt is the page's own turn_message_uuids"


def test_a_page_that_answered_with_another_model_is_said_in_words_and_never_sent_again(serve, player):
    lease = player.lease()
    shows = {"conversation_id": None, "model": "gpt-5-2-thinking"}
    page = in_background(lambda: player.play_one(lease, "An answer.", confirmed=shows))

    async def body():
        async with mcp_client(serve.profile) as client:
            r = ok(await call(client, "send_message", text="Which model answers?",
                              idempotency_key="model-1", new_chat=True,
                              model="gpt-5-2-thinking", wait_seconds=30))
            assert r["status"] == "completed", r
            why = r["destination_mismatch"]
            assert "auto" in why and "gpt-5-2-thinking" in why, why
            assert "did not go where this send asked" in r["message"], r["message"]
            assert r["retry_safe"] is False
            looked = ok(await call(client, "get_send", send_id=r["send_id"]))
            assert looked["destination_mismatch"] == why
    run(body)
    assert page.result()["op_id"] == "mcp-model-1"
    assert player.granted == ["mcp-model-1"], "clicked once, never resent"


def test_a_send_refused_for_the_usage_limit_says_do_not_send_again_before_its_reset(serve, player):
    lease = player.lease()
    words = "You have used up the usage limit of this plan. Sending works again in 30 minutes."

    def page():
        send = player.take_and_click(lease)
        player.limit(lease, send, words)
        return send

    played = in_background(page)

    async def body():
        async with mcp_client(serve.profile) as client:
            r = ok(await call(client, "send_message", text="One more, please.",
                              idempotency_key="limit-1", wait_seconds=30))
            assert r["status"] == "page_error", r
            assert "do not send again before" in r["message"], r["message"]
            secs = int(re.search(r"\(in (\d+) s\)", r["message"]).group(1))
            assert 1700 <= secs <= 1800, f"the page's 30 minutes: {r['message']}"
            assert r["retry_safe"] is False
            looked = ok(await call(client, "get_send", send_id=r["send_id"]))
            assert "do not send again before" in looked["message"], looked["message"]
    run(body)
    assert played.result()["op_id"] == "mcp-limit-1"
    assert player.granted == ["mcp-limit-1"], "clicked once"
    assert len(serve.sends()) == 1, "one send: nothing sent again"


def test_send_message_carries_files_by_path_or_base64_and_the_same_key_with_other_files_is_refused(serve, tmp_path):
    """Issue 29: `attachments` are part of the send; a file on this machine by path, or
    inline as base64; the same key with the same files is the same send, with other files
    it is refused; a file over 32 MiB is refused before anything is uploaded."""
    import base64
    chart = tmp_path / "chart.png"
    chart.write_bytes(b"\x89PNG\r\n\x1a\n a chart")
    inline = {"name": "notes.txt", "mime": "text/plain",
              "base64": base64.b64encode(b"some notes").decode()}
    files = [{"path": str(chart)}, inline]

    async def body():
        async with mcp_client(serve.profile) as client:
            r = ok(await call(client, "send_message", text="Look at these.", idempotency_key="files-1",
                              wait_seconds=0, attachments=files))
            again = ok(await call(client, "send_message", text="Look at these.",
                                  idempotency_key="files-1", wait_seconds=0, attachments=files))
            assert again["send_id"] == r["send_id"] == "mcp-files-1"
            other = await call(client, "send_message", text="Look at these.", idempotency_key="files-1",
                               wait_seconds=0, attachments=[inline])
            assert other.is_error, "other files under the same key"
            big = tmp_path / "big.bin"
            with open(big, "wb") as f:
                f.truncate(32 * 1024 * 1024 + 1)
            said = error_text(await call(client, "send_message", text="Too big.", idempotency_key="files-2",
                                         wait_seconds=0, attachments=[{"path": str(big)}]))
            assert "32 MiB" in said, said
    run(body)
    shown = serve.show("mcp-files-1")
    assert [(a["name"], a["mime"]) for a in shown["attachments"]] == \
        [("chart.png", "image/png"), ("notes.txt", "text/plain")], shown["attachments"]
    assert [s["op_id"] for s in serve.sends()] == ["mcp-files-1"], "the refused ones wrote nothing"
