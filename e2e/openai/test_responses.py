"""The Responses API door (`POST /v1/responses`, `GET /v1/responses/{id}`) driven by the
official `openai` Python SDK's `responses.create` — non-streamed, streamed, background +
retrieve — against a real owner, the extension played over HTTP (scenarios.py). Each test
counts the page's POSTs (`player.grants`) and reads the ledger's sends."""
import threading
import time

import openai
import pytest

from scenarios import (ANSWER, PROMPT, assert_no_retry_uncertain, assert_one_claude_send,
                       assert_one_send, assert_one_uncertain_send, in_thread, kill_after_grant)

MODEL = "gpt-sl-test"
CLAUDE_MODEL = "claude-sonnet-4-6"  # a claude.ai page model name
EVENTS = ["response.created", "response.in_progress", "response.output_item.added",
          "response.content_part.added", "response.output_text.delta",
          "response.output_text.done", "response.content_part.done",
          "response.output_item.done", "response.completed"]


def create(sdk, model="chatgpt-tab", **kw):
    return sdk.responses.with_raw_response.create(model=model, input=PROMPT, **kw)


def poll(sdk, rid, until=("completed", "failed", "cancelled"), bound_s=60):
    """`responses.retrieve` every 0.2 s until the status is one of `until`."""
    deadline = time.time() + bound_s
    while True:
        got = sdk.responses.retrieve(rid)
        if got.status in until or time.time() > deadline:
            return got
        time.sleep(0.2)


def test_responses_create_is_the_pages_answer_from_one_post(owner, sdk, player, page):
    page(ANSWER)
    raw = create(sdk, instructions="Be brief.")
    done = raw.parse()
    op = assert_one_send(owner, player, "completed")
    assert raw.headers["x-sendledger-operation-id"] == op
    assert done.id == f"resp_{op}" and done.object == "response"
    assert done.status == "completed"
    assert done.output_text == ANSWER
    assert done.model == MODEL, "the model is the page's"
    assert "instructions" in raw.headers["x-sendledger-ignored"]
    assert sdk.responses.retrieve(done.id).output_text == ANSWER, "retrieve answers it too"


def test_responses_stream_is_the_responses_event_stream_of_the_pages_answer_from_one_post(owner, sdk, player, page):
    page(ANSWER, pieces=4)
    events = list(sdk.responses.create(model="chatgpt-tab", input=PROMPT, stream=True))
    kinds = [e.type for e in events]
    assert [k for k in dict.fromkeys(kinds)] == EVENTS, kinds
    assert kinds[-1] == "response.completed"
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert "".join(deltas) == ANSWER and len(deltas) >= 2
    seq = [e.sequence_number for e in events]
    assert seq == sorted(seq) and len(set(seq)) == len(seq), "sequence numbers increase"
    assert events[-1].response.output_text == ANSWER
    op = assert_one_send(owner, player, "completed")
    assert events[0].response.id == f"resp_{op}"


def test_responses_background_answers_at_once_and_retrieve_polls_to_the_pages_answer(owner, sdk, player, page):
    release = threading.Event()
    page(ANSWER, on_grant=lambda send: release.wait(30))
    started = sdk.responses.create(model="chatgpt-tab", input=PROMPT, background=True)
    assert started.status in ("queued", "in_progress"), started
    assert sdk.responses.retrieve(started.id).status in ("queued", "in_progress")
    release.set()
    done = poll(sdk, started.id)
    assert done.status == "completed" and done.output_text == ANSWER
    op = assert_one_send(owner, player, "completed")
    assert started.id == f"resp_{op}"


def test_responses_create_after_an_owner_sigkill_attaches_to_the_uncertain_send_and_ends_in_its_no_retry_error(owner, sdk, player, page):
    sdk = sdk.with_options(max_retries=5)  # its own retries outlast the owner's restart
    op, box = kill_after_grant(owner, page, lambda: create(sdk))
    err = box.get("error")
    assert isinstance(err, openai.APIStatusError), box
    assert_no_retry_uncertain(err.status_code, err.response.headers, err.body, op)
    assert_one_uncertain_send(owner, player, op)


def test_responses_stream_cut_by_an_owner_sigkill_is_one_uncertain_send_and_asking_again_is_its_no_retry_error(owner, sdk, player, page):
    def stream():
        return [e for e in sdk.responses.create(model="chatgpt-tab", input=PROMPT, stream=True)]
    op, box = kill_after_grant(owner, page, stream)
    # The SDKs never retry a stream once it has started: the cut is the caller's to see.
    assert "error" in box or box["value"][-1].type != "response.completed", box
    try:  # the caller asks again, the same request: it attaches to the send recovery made uncertain
        events = stream()
    except openai.APIStatusError as err:  # refused before the stream started
        assert_no_retry_uncertain(err.status_code, err.response.headers, err.body, op)
    except openai.APIError as err:  # the stream's response.failed, then its error event
        assert err.body["code"] == "send_uncertain", err.body
        assert op in err.message and "do not retry" in err.message, err.message
    else:
        failed = [e for e in events if e.type == "response.failed"]
        assert failed and failed[0].response.error.code == "send_uncertain", events
        assert op in failed[0].response.error.message
    assert_one_uncertain_send(owner, player, op)


def test_responses_background_after_an_owner_sigkill_retrieves_as_failed_send_uncertain(owner, sdk, player, page):
    ops = []
    p = page(None, on_grant=lambda send: ops.append(send["op_id"]))
    started = sdk.responses.create(model="chatgpt-tab", input=PROMPT, background=True)
    assert p.granted.wait(30)
    owner.kill()
    owner.start()
    got = poll(sdk, started.id)
    assert got.status == "failed", got
    assert got.error.code == "send_uncertain" and ops[0] in got.error.message
    assert started.id == f"resp_{ops[0]}"
    assert_one_uncertain_send(owner, player, ops[0])


def test_responses_create_past_its_timeout_retries_into_the_same_send(owner, key, player, page):
    sdk = openai.OpenAI(base_url=owner.base_url(), api_key=key, timeout=1.5)
    page(ANSWER, delay_s=2.5)
    raw = create(sdk)
    assert raw.parse().output_text == ANSWER
    assert raw.headers["x-sendledger-attached"] == "true", "the answer came to a retry"
    assert_one_send(owner, player, "completed")


def test_responses_create_with_a_claude_model_goes_to_a_claude_tab_and_its_retry_after_the_timeout_is_one_send(owner, key, player, page):
    player.lease(tab="tab-claude", site="claude")
    sdk = openai.OpenAI(base_url=owner.base_url(), api_key=key, timeout=1.5)
    page(ANSWER, delay_s=2.5, model=CLAUDE_MODEL)
    # `claude:<name>`: a claude.ai tab showing that page model; the SDK retries on its own.
    raw = create(sdk, model=f"claude:{CLAUDE_MODEL}")
    done = raw.parse()
    assert done.output_text == ANSWER
    assert done.model == CLAUDE_MODEL, "the model is the claude.ai page's"
    assert raw.headers["x-sendledger-attached"] == "true", "the answer came to the SDK's retry"
    op = assert_one_claude_send(owner, player)
    assert raw.headers["x-sendledger-operation-id"] == op
    assert owner.get(f"/v1/sends/{op}")["destination"]["model"] == CLAUDE_MODEL


@pytest.mark.owner_env(SENDLEDGER_OPENAI_HOLD_MS="3000")
def test_a_non_streamed_answer_longer_than_the_hold_ends_in_the_named_still_pending_and_asking_again_gets_it(owner, sdk, player, page):
    page(ANSWER, delay_s=4.5)  # past the first hold, inside the second
    chat = lambda s: s.chat.completions.with_raw_response.create(  # noqa: E731
        model="chatgpt-tab", messages=[{"role": "user", "content": PROMPT}])
    for ask, text in ((create, lambda r: r.output_text), (chat, lambda r: r.choices[0].message.content)):
        with pytest.raises(openai.APIStatusError) as held:
            ask(sdk)
        err = held.value
        op = err.response.headers["x-sendledger-operation-id"]
        assert err.status_code == 424 and err.body["code"] == "still_pending", err.body
        assert err.response.headers["x-should-retry"] == "false"
        assert op in err.message, "the sentence names the send"
        caller = in_thread(lambda: ask(sdk))
        caller.join(60)
        again = caller.box.get("value")
        assert again is not None, caller.box
        assert text(again.parse()) == ANSWER
        assert again.headers["x-sendledger-attached"] == "true"
        assert again.headers["x-sendledger-operation-id"] == op
    assert player.grants == 2, "one POST for each door's request"
    assert [s["state"] for s in owner.sends()] == ["completed", "completed"]


def test_previous_response_id_sends_only_into_the_conversation_that_responses_send_went_to(owner, sdk, player):
    th = player.in_thread(player.answer_next, ANSWER)
    first = sdk.responses.create(model="chatgpt-tab", input=PROMPT)
    th.join(30)
    assert th.box["error"] is None, th.box["error"]
    conv = owner.get(f"/v1/sends/{first.id[len('resp_'):]}")["send"]["receipt"]["conversation_id"]
    second = sdk.responses.create(model="chatgpt-tab", input="And once more?", background=True,
                                  previous_response_id=first.id)
    # No tab shows that conversation: the tab is handed the send and goes there first (the
    # extension's full navigation); its page there leases again and the claim moves with it.
    handed = player.next(wait_ms=5000)
    assert handed is not None and handed["destination"]["conversation_id"] == conv, handed
    player.lease(conversation=conv)  # the tab now shows the first answer's conversation
    th = player.in_thread(player.answer_next, "Once more.")
    done = poll(sdk, second.id)
    th.join(30)
    assert th.box["error"] is None, th.box["error"]
    assert done.status == "completed" and done.output_text == "Once more."
    sent = owner.get(f"/v1/sends/{second.id[len('resp_'):]}")["send"]
    assert sent["conversation_id"] == conv and sent["receipt"]["conversation_id"] == conv
    assert player.grants == 2
