"""Fixtures of the MCP suite: a fresh profile, a running owner, a paired extension."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from mcp_harness import Player, Serve  # noqa: E402


@pytest.fixture
def profile(tmp_path):
    p = tmp_path / "profile"
    p.mkdir(mode=0o700)
    return p


@pytest.fixture
def serve(profile):
    s = Serve(profile)
    yield s
    s.close()


@pytest.fixture
def player(serve):
    return Player(serve)
