"""Fixtures of the OpenAI door suite: a real `sendledger serve` child (binary from
$SENDLEDGER_BIN) on a fixed free port and a fresh profile, a named API key made with the
CLI, the official `openai` SDK pointed at it, and the extension player."""
import json
import os
import socket
import subprocess
import sys
import threading

import openai
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from player import Page, Player, http  # noqa: E402

BIN = os.environ.get("SENDLEDGER_BIN", os.path.join(os.path.dirname(__file__), "../../target/debug/sendledger"))
BOUND_S = 30


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Owner:
    """`sendledger serve` on `port` with `profile`; restartable on the same port."""

    def __init__(self, profile, port, log, env=None):
        self.profile, self.port, self.log = profile, port, log
        self.env = env or {}
        self.proc = None

    def start(self):
        self.proc = subprocess.Popen(
            [BIN, "--profile", self.profile, "serve", "--port", str(self.port)],
            stdout=subprocess.PIPE, stderr=self.log, stdin=subprocess.DEVNULL, text=True,
            env={**os.environ, "SENDLEDGER_LOG": "debug", **self.env})
        ready = threading.Event()

        def read():
            for line in self.proc.stdout:
                if line.startswith("port "):
                    ready.set()
        threading.Thread(target=read, daemon=True).start()
        assert ready.wait(BOUND_S), "serve printed its port"
        return self

    def kill(self):
        self.proc.kill()
        self.proc.wait(BOUND_S)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()

    def client_token(self):
        with open(os.path.join(self.profile, "client.token")) as f:
            return f.read().strip()

    def cli(self, *args):
        out = subprocess.run([BIN, "--profile", self.profile, "--json", *args],
                             capture_output=True, text=True, timeout=BOUND_S)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    def get(self, path):
        status, body, _ = http(self.port, "GET", path, token=self.client_token())
        assert status == 200, body
        return body

    def post(self, path, body):
        return http(self.port, "POST", path, body, token=self.client_token())

    def sends(self):
        return self.get("/v1/sends?limit=1000")["sends"]

    def base_url(self):
        return f"http://127.0.0.1:{self.port}/v1"


@pytest.fixture
def owner(tmp_path, request):
    """The owner; `@pytest.mark.owner_env(NAME="value")` adds to its environment (e.g.
    SENDLEDGER_OPENAI_HOLD_MS, the door's hold of a non-streamed request)."""
    marker = request.node.get_closest_marker("owner_env")
    env = dict(marker.kwargs) if marker else {}
    profile = tmp_path / "profile"
    profile.mkdir(mode=0o700)
    logs = os.environ.get("SENDLEDGER_E2E_LOGS", str(tmp_path))
    os.makedirs(logs, exist_ok=True)
    name = os.environ.get("PYTEST_CURRENT_TEST", "owner").split(" ")[0].split("::")[-1]
    with open(os.path.join(logs, f"{name}.log"), "w") as log:
        o = Owner(str(profile), free_port(), log, env).start()
        yield o
        o.stop()


@pytest.fixture
def key(owner):
    """A named key a person made with `sendledger keys create companion`."""
    return owner.cli("keys", "create", "companion", "--by", "tester")["secret"]


@pytest.fixture
def sdk(owner, key):
    """The official SDK as a companion configures it: base_url and a named key, default
    retries; a 60 s timeout (not 600 s) so a broken rule fails a test instead of hanging it."""
    return openai.OpenAI(base_url=owner.base_url(), api_key=key, timeout=60)


@pytest.fixture
def player(owner):
    p = Player(owner.port, owner.client_token())
    p.lease()
    return p


@pytest.fixture
def page(player):
    """Starts the page (player.Page) on `player`: `page(answer, delay_s=0, on_grant=None)`;
    every page started is stopped at the test's end."""
    started = []

    def start(answer, delay_s=0.0, **kw):
        started.append(Page(player, answer, delay_s, **kw))
        return started[-1]
    yield start
    for p in started:
        p.stop()


def pytest_configure(config):
    config.addinivalue_line("markers", "owner_env(**env): environment added to the owner's")
    # LiteLLM fetches a price list from the internet at import unless told not to.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
