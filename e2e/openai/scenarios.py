"""The three scenarios every client is put through (issue 24), as choreographies shared by
the client tests: the page's answer; an owner SIGKILLed after the grant and started again
on the same port; a client timeout shorter than the answer. The page is player.Page: it
grants (one POST of the page each, `player.grants`) and answers every send it is handed,
so a retry the door took for a new message is clicked too and shows in the count."""
import threading

ANSWER = "Ledgers keep their word:\neach line once, no more,\nno line lost."
PROMPT = "Write a haiku about ledgers."
BOUND_S = 120


def in_thread(fn):
    """Runs `fn()` in a thread; the thread's `.box` gets "value" or "error"."""
    box = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - the test asserts on it
            box["error"] = e
    th = threading.Thread(target=run, daemon=True)
    th.box = box
    th.start()
    return th


def kill_after_grant(owner, page, call):
    """Runs `call()` while the page is granted its send but never answers it; then SIGKILLs
    the owner and starts it again on the same port and profile, so the client's own retry
    reaches the new owner. Returns (the send's op id, the caller's box)."""
    ops = []
    p = page(None, on_grant=lambda send: ops.append(send["op_id"]))
    caller = in_thread(call)
    assert p.granted.wait(30), "the send was granted"
    owner.kill()
    owner.start()
    caller.join(BOUND_S)
    assert not caller.is_alive(), "the caller ended"
    return ops[0], caller.box


def assert_one_send(owner, player, state):
    """One POST of the page and one send in the ledger, in `state`; returns its op id."""
    sends = owner.sends()
    assert player.grants == 1, f"the page saw {player.grants} POSTs"
    assert [s["state"] for s in sends] == [state], sends
    return sends[0]["op_id"]


def assert_one_uncertain_send(owner, player, op):
    assert player.grants == 1, f"the page saw {player.grants} POSTs"
    assert [(s["op_id"], s["state"]) for s in owner.sends()] == [(op, "uncertain")]


def assert_no_retry_uncertain(status, headers, error, op):
    """The door's answer to a retry of a send recovery made uncertain: 424 send_uncertain,
    x-should-retry: false, a sentence naming the send and saying not to retry."""
    assert status == 424, (status, error)
    assert headers.get("x-should-retry") == "false", headers
    assert error["code"] == "send_uncertain", error
    assert op in error["message"] and "do not retry" in error["message"], error


def assert_one_claude_send(owner, player, state="completed"):
    """One completion POST of the claude.ai page (one grant) and one send in the ledger, in
    `state`, whose site is claude and whose receipt is the ids the page chose for it (the
    claude.ai turn the player forwarded: tests/support/claude_page.py); returns its op id."""
    op = assert_one_send(owner, player, state)
    shown = owner.get(f"/v1/sends/{op}")
    assert shown["destination"]["site"] == "claude", shown["destination"]
    turn = player.claude_turns[op]
    assert shown["send"]["receipt"] == {
        "conversation_id": turn.conversation, "user_message_id": turn.human,
        "turn_id": turn.assistant}, "the receipt is the page's own turn_message_uuids"
    return op
