"""The claude.ai page's traffic for one send, as the extension forwards it (issue 36): the
completion request the page POSTs (with the message ids the page chose,
`turn_message_uuids`) and the typed event stream that answers it. The shapes are those of
the project's own fixtures — tests/fixtures/claude/request_new_chat.json and
request_follow_up.json for the request, stream_answer.sse for the stream — whose public
sources docs/claude-provider.md names; every fact is unverified against the live page.
The uuids and words are the test's own. No third-party code.

One helper for the suites that play the extension over HTTP against a real owner: the
OpenAI door suite (e2e/openai/player.py) and the MCP suite (tests/mcp/mcp_harness.py).
"""

import json
import uuid

ORG = "3f1c6a52-9d0e-4b7a-a1c2-5e8f90d4b6a1"
# The parent of a new chat's first message (request_new_chat.json).
ROOT_PARENT = "00000000-0000-4000-8000-000000000000"
MODEL = "claude-sonnet-4-6"


def event(kind, **fields):
    """One SSE event: `event: <kind>` and `data: {"type": <kind>, …}`, then a blank line."""
    return f"event: {kind}\ndata: " + json.dumps({"type": kind, **fields}, ensure_ascii=False) + "\n\n"


class ClaudeTurn:
    """One completion of the page for the send whose text is `text`: in `conversation` (a
    uuid) when the send names one, else a new chat the page has just created (a fresh
    uuid in the route, `create_conversation_params` in the body); answered with `answer`
    cut in `pieces` text deltas."""

    def __init__(self, text, answer, conversation=None, model=MODEL, pieces=2):
        self.text, self.answer, self.model = text, answer, model
        self.new_chat = conversation is None
        self.conversation = conversation or str(uuid.uuid4())
        self.human = str(uuid.uuid4())
        self.assistant = str(uuid.uuid4())
        self.pieces = max(1, pieces)

    def url(self):
        """The completion route: `POST /api/organizations/{org}/chat_conversations/{conversation}/completion`."""
        return (f"https://claude.ai/api/organizations/{ORG}/chat_conversations/"
                f"{self.conversation}/completion")

    def request_body(self):
        """The completion request's JSON text: the composer's text as `prompt`, the ids
        the page chose for the person's message and the answer."""
        body = {
            "prompt": self.text,
            "parent_message_uuid": ROOT_PARENT if self.new_chat else str(uuid.uuid4()),
            "timezone": "Europe/Berlin",
            "locale": "en-US",
            "model": self.model,
            "tools": [],
            "turn_message_uuids": {"human_message_uuid": self.human,
                                   "assistant_message_uuid": self.assistant},
            "attachments": [],
            "files": [],
            "sync_sources": [],
            "rendering_mode": "messages",
        }
        if self.new_chat:
            body["create_conversation_params"] = {
                "name": "", "model": self.model, "include_conversation_preferences": True,
                "is_temporary": False}
        return json.dumps(body, ensure_ascii=False)

    def head(self):
        """`message_start` naming the assistant message the request chose, the text block's start."""
        message = {"id": "chatcompl_" + uuid.uuid4().hex[:24], "type": "message",
                   "role": "assistant", "model": self.model, "uuid": self.assistant,
                   "parent_uuid": self.human, "content": [], "stop_reason": None,
                   "stop_sequence": None}
        return (event("message_start", message=message)
                + event("content_block_start", index=0,
                        content_block={"type": "text", "text": "", "citations": []})
                + event("ping"))

    def answer_pieces(self):
        """The answer as `text_delta`s, in order."""
        step = max(1, -(-len(self.answer) // self.pieces))
        return [event("content_block_delta", index=0, delta={"type": "text_delta", "text": p})
                for p in (self.answer[i:i + step] for i in range(0, len(self.answer), step))]

    def tail(self):
        """The block's end, `end_turn`, a limit within bounds, `message_stop`."""
        limit = {"type": "within_limit", "resetsAt": None, "remaining": None,
                 "perModelLimit": None, "windows": {}}
        return (event("content_block_stop", index=0)
                + event("message_delta", delta={"stop_reason": "end_turn", "stop_sequence": None})
                + event("message_limit", message_limit=limit)
                + event("message_stop"))

    def chunks(self):
        """The stream as the extension forwards it, piece by piece."""
        return [self.head()] + self.answer_pieces() + [self.tail()]
