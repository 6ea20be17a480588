"""The official `openai` SDK on "another machine": through a real sshd on loopback and
`ssh -N -L` (tests/support/sshd.py, the one sshd helper), with a named key (issue 38). The
tunnel drops after the grant and opens again; the SDK's own retry is the one send."""
import sys
from pathlib import Path

import openai
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "support"))
from sshd import Sshd  # noqa: E402

ANSWER = "Through the tunnel, once."


@pytest.fixture
def tunnel(owner, tmp_path):
    sshd = Sshd(tmp_path / "sshd")
    t = sshd.tunnel(owner.port)
    yield t
    t.close()
    sshd.close()


def test_an_openai_sdk_send_through_a_tunnel_killed_after_the_grant_and_opened_again_is_one_send(
        owner, key, player, tunnel):
    # The SDK's own retries (back-off 0.5, 1, 2, 4, 8 s) outlast the tunnel's reopening.
    sdk = openai.OpenAI(base_url=f"{tunnel.url}/v1", api_key=key, timeout=60, max_retries=5)

    def drop_the_tunnel(send):
        tunnel.kill()  # after the grant, while the SDK's request is held open through it
        tunnel.start()

    th = player.in_thread(player.answer_next, ANSWER, before_turn=drop_the_tunnel)
    raw = sdk.chat.completions.with_raw_response.create(
        model="chatgpt-tab", messages=[{"role": "user", "content": "Say it once."}])
    th.join(30)
    assert th.box["error"] is None, th.box["error"]
    assert raw.parse().choices[0].message.content == ANSWER
    assert raw.headers["x-sendledger-attached"] == "true", "the answer came to the retry"
    assert player.grants == 1, "the page saw exactly one POST"
    assert len(owner.sends()) == 1, "one send"
