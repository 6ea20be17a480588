"""Files out through the Responses door (issue 29), driven by the official `openai` Python
SDK: the answer's generated image — in the page's answer stream as an image_gen tool
message, fetched by the tab (the player speaks the extension's artifact routes) and stored
by the owner — comes back as an `image_generation_call` output item whose `result` decodes
to the byte-identical image; a client timeout followed by the SDK's own retry is still one
send, clicked once. Streamed, the image's item arrives in `response.output_item.done`."""
import base64
import time

import openai

from test_files import png

ANSWER = "Here is the ledger book you asked for."
MODEL = "gpt-sl-test"
FILE_ID = "file_0000000000000000000000000000e2e0"


def image_items(output):
    return [o for o in output if o.type == "image_generation_call"]


def test_a_generated_image_comes_back_byte_identical_through_the_responses_door_after_a_retry(owner, key, player):
    picture = png(48, 32)
    sdk = openai.OpenAI(base_url=owner.base_url(), api_key=key, timeout=1.5)
    th = player.in_thread(player.answer_next, ANSWER, model=MODEL, images=[(FILE_ID, picture)],
                          before_turn=lambda send: time.sleep(2.5))
    raw = sdk.responses.with_raw_response.create(model="chatgpt-tab", input="Draw a ledger book.")
    th.join(30)
    assert th.box["error"] is None, th.box["error"]
    resp = raw.parse()
    assert resp.status == "completed", resp
    assert raw.headers["x-sendledger-attached"] == "true", "the answer came to a retry that attached"
    [image] = image_items(resp.output)
    assert resp.output[0].type == "image_generation_call", "the image comes before the message"
    assert image.status == "completed"
    assert base64.b64decode(image.result) == picture, "byte-identical"
    assert resp.output_text == ANSWER
    assert player.grants == 1, "one click"
    sends = owner.sends()
    assert len(sends) == 1, "one send"
    [art] = owner.get(f"/v1/sends/{sends[0]['op_id']}")["artifacts"]
    assert art["state"] == "stored" and art["file_id"] == FILE_ID and art["mime"] == "image/png"


def test_a_streamed_response_carries_the_generated_image_in_its_output_item(owner, key, player):
    picture = png(16, 16)
    sdk = openai.OpenAI(base_url=owner.base_url(), api_key=key, timeout=30)
    th = player.in_thread(player.answer_next, ANSWER, model=MODEL, images=[(FILE_ID, picture)])
    done = []
    completed = None
    with sdk.responses.create(model="chatgpt-tab", input="Draw a small ledger.", stream=True) as events:
        for e in events:
            if e.type == "response.output_item.done" and e.item.type == "image_generation_call":
                done.append(e.item)
            if e.type == "response.completed":
                completed = e.response
    th.join(30)
    assert th.box["error"] is None, th.box["error"]
    [item] = done
    assert base64.b64decode(item.result) == picture, "byte-identical"
    assert completed is not None and completed.status == "completed"
    [image] = image_items(completed.output)
    assert base64.b64decode(image.result) == picture
    assert player.grants == 1
