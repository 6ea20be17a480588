"""Files in through the OpenAI chat door (issue 29), driven by the official `openai`
Python SDK: an image as a `data:` URL in an `image_url` part becomes the send's
attachment — stored byte-identical, handed to the tab, confirmed at the grant, carried by
the page's request — and a client timeout followed by the SDK's own retry is one send,
clicked once, with the picture once."""
import base64
import hashlib
import struct
import time
import zlib

import openai

ANSWER = "A red square on a white ground."
MODEL = "gpt-sl-test"


def png(width=64, height=64):
    """A real PNG (8-bit RGB, a red square), built here: no image is downloaded."""
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    row = b"\x00" + b"\xff\x00\x00" * width
    raw = zlib.compress(row * height)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


def test_an_image_data_url_with_a_client_timeout_and_the_sdks_retry_is_one_send_clicked_once(owner, key, player):
    picture = png()
    url = "data:image/png;base64," + base64.b64encode(picture).decode()
    sdk = openai.OpenAI(base_url=owner.base_url(), api_key=key, timeout=1.5)
    th = player.in_thread(player.answer_next, ANSWER, model=MODEL,
                          before_turn=lambda send: time.sleep(2.5))
    raw = sdk.chat.completions.with_raw_response.create(model="chatgpt-tab", messages=[
        {"role": "user", "content": [
            {"type": "text", "text": "What is in this picture?"},
            {"type": "image_url", "image_url": {"url": url, "detail": "auto"}}]}])
    th.join(30)
    assert th.box["error"] is None, th.box["error"]
    assert raw.parse().choices[0].message.content == ANSWER
    assert raw.headers["x-sendledger-attached"] == "true", "the answer came to a retry that attached"
    assert player.grants == 1, "one click"
    sends = owner.sends()
    assert len(sends) == 1, "one send"
    shown = owner.get(f"/v1/sends/{sends[0]['op_id']}")
    [file] = shown["attachments"]
    assert file["mime"] == "image/png" and file["size"] == len(picture)
    assert file["sha256"] == hashlib.sha256(picture).hexdigest(), "stored byte-identical"
    assert file["file_id"], "the page's file id was recorded at the grant"
    assert shown["page_attachments"]["mismatch"] is None, shown["page_attachments"]
