"""The OpenAI-compatible door driven by the official `openai` Python SDK (pinned in
requirements.txt) against a real owner, the extension played over HTTP. Each test is
named after the rule it pins; `player.grants` counts the page's POSTs (dispatch grants)."""
import re
import threading
import time

import openai
import pytest

from player import Player, http
from scenarios import assert_one_claude_send

ANSWER = "Ledgers keep their word:\neach line once, no more,\nno line lost."
MODEL = "gpt-sl-test"
CLAUDE_MODEL = "claude-sonnet-4-6"  # the claude.ai page's own model name


def ask(sdk, text="Write a haiku about ledgers.", model="chatgpt-tab", **kw):
    return sdk.chat.completions.with_raw_response.create(
        model=model, messages=[{"role": "user", "content": text}], **kw)


def ask_in_thread(sdk):
    """Runs `ask(sdk)` in a thread: (the thread, a dict that gets "value" or "error")."""
    result = {}

    def call():
        try:
            result["value"] = ask(sdk)
        except Exception as e:  # noqa: BLE001 - the caller asserts on it
            result["error"] = e
    caller = threading.Thread(target=call, daemon=True)
    caller.start()
    return caller, result


def test_models_lists_the_tab_model_of_each_site(sdk):
    assert [m.id for m in sdk.models.list()] == ["chatgpt-tab", "claude-tab"]


def test_a_completion_is_the_pages_final_answer_from_exactly_one_post(owner, sdk, player):
    th = player.in_thread(player.answer_next, ANSWER, model=MODEL)
    raw = ask(sdk)
    done = raw.parse()
    th.join(30)
    assert th.box["error"] is None, th.box["error"]
    op = raw.headers["x-sendledger-operation-id"]
    assert done.object == "chat.completion"
    assert done.choices[0].message.content == ANSWER
    assert done.choices[0].finish_reason == "stop"
    assert done.model == MODEL, "the model is the page's"
    assert done.id == f"chatcmpl-{op}", "the id is tied to the operation id"
    assert done.usage is None, "usage is unknown, never invented"
    assert player.grants == 1
    shown = owner.get(f"/v1/sends/{op}")
    assert shown["send"]["state"] == "completed"
    assert shown["timeline"][0]["actor"] == "openai:key:companion", "the key is the send's actor"
    listed = owner.cli("keys", "list")["keys"]
    assert listed[0]["name"] == "companion" and listed[0]["last_used_at"] is not None


def test_streamed_deltas_arrive_while_the_page_streams_and_concatenate_to_the_answer(owner, sdk, player):
    first_delta = threading.Event()
    seen_mid_stream = []

    def pace(i):
        if i == 2:  # the rest of the answer waits (bounded) until the client saw a delta
            seen_mid_stream.append(first_delta.wait(10))

    th = player.in_thread(player.answer_next, ANSWER, model=MODEL, pieces=4, between=pace)
    stream = sdk.chat.completions.create(
        model="chatgpt-tab", messages=[{"role": "user", "content": "Stream a haiku."}], stream=True,
        timeout=20)  # a read timeout: deltas must come while the page streams
    deltas, finish, ids = [], None, set()
    for chunk in stream:
        ids.add(chunk.id)
        c = chunk.choices[0]
        if c.delta.content:
            deltas.append(c.delta.content)
            first_delta.set()
        finish = c.finish_reason or finish
    th.join(30)
    assert th.box["error"] is None, th.box["error"]
    assert seen_mid_stream == [True], "a delta reached the client while the page streamed"
    assert "".join(deltas) == ANSWER
    assert len(deltas) >= 2, "the answer came in pieces, as typed"
    assert finish == "stop"
    assert len(ids) == 1 and next(iter(ids)).startswith("chatcmpl-")
    assert player.grants == 1
    assert len(owner.sends()) == 1


def test_sigkill_after_the_grant_ends_the_sdk_in_a_no_retry_error_with_one_uncertain_send(owner, sdk, player):
    granted = threading.Event()

    def take_and_grant():
        send = player.next()
        player.grant(send["op_id"])
        granted.set()
        return send["op_id"]

    th = player.in_thread(take_and_grant)
    # The SDK's own retries (back-off 0.5, 1, 2, 4, 8 s) must outlast the owner's restart:
    # its default two (~1.5 s) do not on a loaded machine, and a companion may set more.
    caller, result = ask_in_thread(sdk.with_options(max_retries=5))
    assert granted.wait(30), "the send was granted"
    th.join(30)
    op = th.box["value"]
    owner.kill()
    owner.start()  # same port and profile: the SDK's own retry reaches the new owner
    caller.join(60)
    err = result.get("error")
    assert isinstance(err, openai.APIStatusError), f"the SDK ended in an API error: {result}"
    assert err.status_code == 424
    assert err.response.headers["x-should-retry"] == "false"
    assert "do not retry" in err.message and op in err.message
    assert err.body["code"] == "send_uncertain"
    assert player.grants == 1, "the page saw exactly one POST"
    sends = owner.sends()
    assert [(s["op_id"], s["state"]) for s in sends] == [(op, "uncertain")]


def test_an_error_turn_ends_the_sdk_in_a_no_retry_error_with_the_pages_words_from_one_post(owner, sdk, player):
    page_says = "Something went wrong while generating the response."

    def take_grant_and_fail():
        send = player.next()
        player.grant(send["op_id"])
        player.error_turn(send, page_says)
        return send["op_id"]

    th = player.in_thread(take_grant_and_fail)
    with pytest.raises(openai.APIStatusError) as raised:
        ask(sdk)
    th.join(30)
    assert th.box["error"] is None, th.box["error"]
    op, err = th.box["value"], raised.value
    assert err.status_code == 424, "outside the statuses the SDK retries"
    assert err.response.headers["x-should-retry"] == "false"
    assert err.body["code"] == "page_error"
    assert "do not retry" in err.message and op in err.message
    assert player.grants == 1, "the page saw exactly one POST"
    shown = owner.get(f"/v1/sends/{op}")
    assert shown["send"]["state"] == "page_error"
    assert page_says in shown["send"]["evidence"], "the page's own words are the evidence"


def test_a_send_refused_for_the_usage_limit_answers_retry_after_and_no_retry_and_the_sdk_sends_once(owner, sdk, player):
    page_says = "You have used up the usage limit of this plan."

    def take_grant_and_limit():
        send = player.next()
        player.grant(send["op_id"])
        player.error_turn(send, page_says, code="usage_limit_reached")
        return send["op_id"]

    th = player.in_thread(take_grant_and_limit)
    with pytest.raises(openai.APIStatusError) as raised:
        ask(sdk)  # the SDK's own retries are on (max_retries 2): it must not use them
    th.join(30)
    assert th.box["error"] is None, th.box["error"]
    op, err = th.box["value"], raised.value
    assert err.status_code == 424
    assert err.response.headers["x-should-retry"] == "false"
    retry_after = int(err.response.headers["retry-after"])
    assert retry_after == 3600, "no reset time named: the bound, an hour"
    assert "do not send again" in err.message.lower() and op in err.message
    assert player.grants == 1, "the page saw exactly one POST"
    assert [s["op_id"] for s in owner.sends()] == [op], "the SDK did not retry: one send"


def test_a_client_timeout_shorter_than_the_answer_retries_into_the_same_send(owner, key, player):
    sdk = openai.OpenAI(base_url=owner.base_url(), api_key=key, timeout=1.5)
    th = player.in_thread(player.answer_next, ANSWER, model=MODEL,
                          before_turn=lambda send: time.sleep(2.5))
    raw = ask(sdk)
    th.join(30)
    assert th.box["error"] is None, th.box["error"]
    assert raw.parse().choices[0].message.content == ANSWER
    assert raw.headers["x-sendledger-attached"] == "true", "the answer came to a retry that attached"
    assert player.grants == 1, "one click"
    assert len(owner.sends()) == 1, "one send"


def test_claude_tab_goes_to_a_claude_tab_and_the_sdks_retry_after_its_timeout_is_the_same_one_send(owner, key, player):
    player.lease(tab="tab-claude", site="claude")
    sdk = openai.OpenAI(base_url=owner.base_url(), api_key=key, timeout=1.5)
    th = player.in_thread(player.answer_next, ANSWER, model=CLAUDE_MODEL,
                          before_turn=lambda send: time.sleep(2.5))
    raw = ask(sdk, model="claude-tab")  # the SDK times out at 1.5 s and retries on its own
    th.join(30)
    assert th.box["error"] is None, th.box["error"]
    done = raw.parse()
    assert done.choices[0].message.content == ANSWER
    assert done.model == CLAUDE_MODEL, "the model is the claude.ai page's"
    assert raw.headers["x-sendledger-attached"] == "true", "the answer came to the SDK's retry"
    op = assert_one_claude_send(owner, player)
    assert raw.headers["x-sendledger-operation-id"] == op


def test_the_same_idempotency_key_twice_is_one_send_and_another_body_under_it_is_refused(owner, sdk, player):
    th = player.in_thread(player.answer_next, ANSWER, model=MODEL)
    first = ask(sdk, extra_headers={"Idempotency-Key": "companion-turn-7"})
    th.join(30)
    again = ask(sdk, extra_headers={"Idempotency-Key": "companion-turn-7"})
    assert first.headers["x-sendledger-operation-id"] == "companion-turn-7"
    assert again.headers["x-sendledger-operation-id"] == "companion-turn-7"
    assert again.headers["x-sendledger-attached"] == "true"
    assert again.parse().choices[0].message.content == ANSWER
    with pytest.raises(openai.UnprocessableEntityError) as refused:
        ask(sdk, text="Something else entirely.", extra_headers={"Idempotency-Key": "companion-turn-7"})
    assert refused.value.body["code"] == "idempotency_key_reused"
    assert refused.value.response.headers["x-should-retry"] == "false"
    assert player.grants == 1
    assert len(owner.sends()) == 1


def test_the_same_body_again_attaches_and_a_deliberate_repeat_differs_or_takes_a_new_idempotency_key(owner, sdk, player, page):
    page("Noted.")
    first = ask(sdk, text="yes")
    again = ask(sdk, text="yes")  # no retry marker of any kind: the same client and body
    assert again.headers["x-sendledger-attached"] == "true"
    assert again.headers["x-sendledger-operation-id"] == first.headers["x-sendledger-operation-id"]
    assert again.parse().choices[0].message.content == "Noted."
    assert player.grants == 1, "the same body again is the same send"
    for k in ("companion-yes-1", "companion-yes-2"):
        assert ask(sdk, text="yes", extra_headers={"Idempotency-Key": k}).headers["x-sendledger-operation-id"] == k
    history = [{"role": "user", "content": "yes"}, {"role": "assistant", "content": "Noted."},
               {"role": "user", "content": "yes"}]
    with_history = sdk.chat.completions.with_raw_response.create(model="chatgpt-tab", messages=history)
    assert with_history.headers["x-sendledger-attached"] == "false", "the history makes it another body"
    assert player.grants == 4, "a new key or a longer history is a new message"
    assert len(owner.sends()) == 4


def test_stop_while_a_request_waits_ends_in_a_no_retry_error_and_nothing_is_clicked(owner, sdk, player):
    caller, result = ask_in_thread(sdk)
    deadline = time.time() + 30
    while not owner.sends() and time.time() < deadline:
        time.sleep(0.05)
    status, body, _ = owner.post("/v1/stop", {"by": "tester"})
    assert status == 200, body
    caller.join(30)
    err = result.get("error")
    assert isinstance(err, openai.APIStatusError), result
    assert err.status_code == 423 and err.body["code"] == "stopped"
    assert err.response.headers["x-should-retry"] == "false"
    # Asked again, the same request attaches and is told the same: what must not happen
    # is a new request for it.
    assert re.search(r"do not (retry|send it as a new request)", err.message), err.message
    assert player.grants == 0, "nothing was clicked"
    assert [s["state"] for s in owner.sends()] == ["stopped"]


def test_a_revoked_or_unknown_key_gets_401_with_no_retry(owner, key, sdk):
    assert sdk.models.list().data
    owner.cli("keys", "revoke", "companion", "--by", "tester")
    for k in [key, "sk-sl-" + "0" * 64, "not-a-key"]:
        c = openai.OpenAI(base_url=owner.base_url(), api_key=k, timeout=10, max_retries=0)
        with pytest.raises(openai.AuthenticationError) as e:
            ask(c)
        assert e.value.response.headers["x-should-retry"] == "false"
        assert e.value.body["code"] == "invalid_api_key"
    assert owner.sends() == [], "nothing queued"


def test_the_client_token_opens_the_door_too(owner, player):
    c = openai.OpenAI(base_url=owner.base_url(), api_key=owner.client_token())
    th = player.in_thread(player.answer_next, ANSWER, model=MODEL)
    raw = ask(c)
    th.join(30)
    op = raw.headers["x-sendledger-operation-id"]
    assert owner.get(f"/v1/sends/{op}")["timeline"][0]["actor"] == "openai:client-token"


@pytest.mark.parametrize("messages,extra,code", [
    ([{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "AA", "format": "wav"}}]}], {}, "unsupported_content"),
    ([{"role": "user", "content": [{"type": "text", "text": "what is this?"}, {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}}]}], {}, "remote_url_unsupported"),
    ([{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}], {}, "last_message_not_user"),
    ([{"role": "user", "content": "hi"}], {"tools": [{"type": "function", "function": {"name": "f"}}]}, "tools_unsupported"),
    ([{"role": "user", "content": "hi"}], {"n": 2}, "n_unsupported"),
    ([{"role": "user", "content": "   "}], {}, "invalid_value"),
])
def test_what_the_tab_cannot_honour_is_refused_with_an_openai_error_and_nothing_queued(owner, sdk, messages, extra, code):
    with pytest.raises(openai.BadRequestError) as e:
        sdk.chat.completions.create(model="chatgpt-tab", messages=messages, **extra)
    assert e.value.body["code"] == code
    assert e.value.body["message"]
    assert e.value.response.headers["x-should-retry"] == "false"
    assert owner.sends() == []


def test_a_system_message_is_not_typed_and_is_named_in_a_header(owner, sdk, player):
    th = player.in_thread(player.answer_next, ANSWER, model=MODEL)
    raw = sdk.chat.completions.with_raw_response.create(
        model="chatgpt-tab", temperature=0.2,
        messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Only this is typed."}])
    th.join(30)
    assert th.box["value"]["text"] == "Only this is typed."
    ignored = raw.headers["x-sendledger-ignored"]
    assert "system_messages=1" in ignored and "temperature" in ignored
    assert "model" not in ignored, "the model is honoured: chatgpt-tab asks for none"


def test_a_model_name_is_the_pages_slug_and_a_page_that_used_another_says_so_in_a_header(owner, sdk, player):
    th = player.in_thread(player.answer_next, ANSWER, model=MODEL)
    raw = sdk.chat.completions.with_raw_response.create(
        model="gpt-5-2-thinking", metadata={"new_chat": "true"},
        messages=[{"role": "user", "content": "Which model answers?"}])
    done = raw.parse()
    th.join(30)
    assert th.box["error"] is None, th.box["error"]
    op = raw.headers["x-sendledger-operation-id"]
    d = owner.get(f"/v1/sends/{op}")["destination"]
    assert (d["kind"], d["model"], d["chosen_by"]) == ("new_chat", "gpt-5-2-thinking", "send"), d
    assert done.model == MODEL, "the model is the page's slug, not the one asked"
    said = raw.headers["x-sendledger-destination-mismatch"]
    assert "gpt-5-2-thinking" in said and "auto" in said, said
    assert player.grants == 1, "sent once, never resent"


def test_a_model_the_tab_cannot_show_is_never_clicked_and_the_sdk_is_told_what_it_showed(owner, sdk, player):
    caller, result = None, {}

    def call():
        try:
            result["value"] = sdk.chat.completions.create(
                model="gpt-5-2-thinking", messages=[{"role": "user", "content": "Think hard."}])
        except Exception as e:  # noqa: BLE001 - asserted below
            result["error"] = e
    caller = threading.Thread(target=call, daemon=True)
    caller.start()
    send = player.next()
    status, body, _ = player.call("/v1/ext/dispatch", {
        "lease_id": player.lease_id, "op_id": send["op_id"],
        "confirmed": {"conversation_id": None, "model": "gpt-5-instant"}})
    assert body.get("granted") is not True, body
    caller.join(30)
    e = result["error"]
    assert isinstance(e, openai.UnprocessableEntityError), e
    assert e.body["code"] == "send_rejected"
    assert "gpt-5-instant" in e.body["message"] and "gpt-5-2-thinking" in e.body["message"]
    assert e.response.headers["x-should-retry"] == "false"
    assert player.grants == 0, "nothing clicked"


def test_a_named_key_on_a_route_it_does_not_open_is_told_the_route_not_a_bad_key(owner, key):
    status, body, _ = http(owner.port, "POST", "/v1/stop", token=key, body={"by": "companion"})
    assert status == 403, body
    assert body["code"] == "wrong_scope", body  # the bridge's own error shape: not a door route
    words = body["message"]
    assert "scope send" in words and "/v1/stop" in words, words
    assert "--scope all" in words, "it names the way in"