"""Files out through MCP (issue 29): a completed send's generated image comes back in
`send_message`'s result as image content, byte-identical; another generated file as an
embedded resource; one that could not be fetched is named with its words. Driven by the
official Python MCP SDK against a real `sendledger serve`, the extension played over HTTP
(it answers with an image_gen message and hands the files over by the artifact routes)."""

import base64
import struct
import zlib

import anyio

from mcp_harness import in_background, mcp_client

PICTURE_ID = "file_000000000000000000000000000000a1"
PDF_ID = "file_000000000000000000000000000000a2"
LOST_ID = "file_000000000000000000000000000000a3"


def png():
    """A real 4x4 PNG, built here."""
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    raw = zlib.compress((b"\x00" + b"\x00\x80\xff" * 4) * 4)
    header = struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


def test_a_generated_image_comes_back_as_image_content_and_a_lost_one_is_named_with_its_words(serve, player):
    picture = png()
    pdf = b"%PDF-1.4\n% a generated ledger\n%%EOF\n"

    def page():
        lease = player.lease()
        send = player.take_and_click(lease)
        player.answer(lease, send, "Here is the picture and the sheet.", images=[PICTURE_ID, PDF_ID, LOST_ID])
        player.hand_artifacts(lease, send["op_id"],
                              {PICTURE_ID: (picture, "image/png"), PDF_ID: (pdf, "application/pdf")},
                              {LOST_ID: "File download failed: the link expired."})
        return send

    async def body():
        playing = in_background(page)
        async with mcp_client(serve.profile) as client:
            result = await client.call_tool("send_message", {
                "text": "Draw the ledger.", "idempotency_key": "files-out-1", "wait_seconds": 60})
        send = playing.result()
        assert not result.is_error
        assert result.structured_content["status"] == "completed"
        images = [c for c in result.content if c.type == "image"]
        assert len(images) == 1, result.content
        assert images[0].mime_type == "image/png"
        assert base64.b64decode(images[0].data) == picture, "byte-identical"
        [resource] = [c for c in result.content if c.type == "resource"]
        assert resource.resource.mime_type == "application/pdf"
        assert base64.b64decode(resource.resource.blob) == pdf
        named = " ".join(c.text for c in result.content if c.type == "text")
        assert LOST_ID in named and "the link expired" in named, named
        assert player.granted == [send["op_id"]], "one click"

    anyio.run(body)
