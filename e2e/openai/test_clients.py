"""Every retry is the same send, whatever the client (issue 24): companions' stock retry
layers that no one here wrote — LangChain's `.with_retry`, LiteLLM's `num_retries`,
urllib3's `Retry` under `requests`, `curl --retry` — driven against a real owner, the
extension played over HTTP (scenarios.py). None of them marks a retry as a retry; the
door's attach rule (same client, same body) must hold all the same. Each test counts the
page's POSTs (`player.grants`) and reads the ledger's sends."""
import json
import subprocess

import litellm
import openai
import pytest
import requests
from langchain_openai import ChatOpenAI
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from scenarios import (ANSWER, PROMPT, assert_no_retry_uncertain, assert_one_send,
                       assert_one_uncertain_send, kill_after_grant)

MESSAGES = [{"role": "user", "content": PROMPT}]


# LangChain: ChatOpenAI(...).with_retry(stop_after_attempt=3). The SDK's own retries are
# off (max_retries=0) so that every attempt is with_retry's: a fresh request that says
# nothing of being a retry (x-stainless-retry-count: 0 each time).

def langchain(owner, key, timeout=60):
    chat = ChatOpenAI(model="chatgpt-tab", base_url=owner.base_url(), api_key=key,
                      timeout=timeout, max_retries=0)
    return chat.with_retry(stop_after_attempt=3)


def test_langchain_with_retry_gets_the_pages_answer_from_one_post(owner, key, player, page):
    page(ANSWER)
    assert langchain(owner, key).invoke(PROMPT).content == ANSWER
    assert_one_send(owner, player, "completed")


def test_langchain_with_retry_after_an_owner_sigkill_attaches_to_the_uncertain_send_and_ends_in_its_no_retry_error(owner, key, player, page):
    op, box = kill_after_grant(owner, page, lambda: langchain(owner, key).invoke(PROMPT))
    err = box.get("error")
    assert isinstance(err, openai.APIStatusError), box
    assert_no_retry_uncertain(err.status_code, err.response.headers, err.body, op)
    assert_one_uncertain_send(owner, player, op)


def test_langchain_with_retry_past_its_timeout_attaches_to_the_same_send(owner, key, player, page):
    page(ANSWER, delay_s=3)
    assert langchain(owner, key, timeout=2).invoke(PROMPT).content == ANSWER
    assert_one_send(owner, player, "completed")


# LiteLLM: completion(num_retries=3, timeout=…) through its OpenAI provider.

def litellm_ask(owner, key, timeout=60):
    return litellm.completion(model="openai/chatgpt-tab", api_base=owner.base_url(), api_key=key,
                              messages=MESSAGES, num_retries=3, timeout=timeout)


def test_litellm_num_retries_gets_the_pages_answer_from_one_post(owner, key, player, page):
    page(ANSWER)
    assert litellm_ask(owner, key).choices[0].message.content == ANSWER
    assert_one_send(owner, player, "completed")


def test_litellm_num_retries_after_an_owner_sigkill_attaches_to_the_uncertain_send_and_ends_in_its_no_retry_error(owner, key, player, page):
    op, box = kill_after_grant(owner, page, lambda: litellm_ask(owner, key))
    err = box.get("error")
    assert err is not None and getattr(err, "status_code", None) == 424, box
    assert "send_uncertain" in str(err) or "do not retry" in str(err), err
    assert op in str(err), err
    assert_one_uncertain_send(owner, player, op)


def test_litellm_num_retries_past_its_timeout_attaches_to_the_same_send(owner, key, player, page):
    # LiteLLM hands num_retries to the openai SDK first (4 attempts of 2 s with its back-off,
    # ~11 s, marked x-stainless-retry-count 1..3), then retries the whole call itself 3
    # times with the SDK's retries off — fresh requests marked as first attempts. An answer
    # at 12 s lands in LiteLLM's own attempts: only the attach rule makes them the same send.
    page(ANSWER, delay_s=12)
    assert litellm_ask(owner, key, timeout=2).choices[0].message.content == ANSWER
    assert_one_send(owner, player, "completed")


# A plain HTTP client with its own retries: requests + urllib3 Retry(total=3,
# allowed_methods=None), which retries a POST on a read timeout or a dropped connection.

def requests_ask(owner, key, timeout=60):
    session = requests.Session()
    retry = Retry(total=3, allowed_methods=None, backoff_factor=1, raise_on_status=False)
    session.mount("http://", HTTPAdapter(max_retries=retry))
    return session.post(f"{owner.base_url()}/chat/completions", timeout=timeout,
                        headers={"authorization": f"Bearer {key}"},
                        json={"model": "chatgpt-tab", "messages": MESSAGES})


def test_requests_with_urllib3_retry_gets_the_pages_answer_from_one_post(owner, key, player, page):
    page(ANSWER)
    r = requests_ask(owner, key)
    assert r.status_code == 200, r.text
    assert r.json()["choices"][0]["message"]["content"] == ANSWER
    assert_one_send(owner, player, "completed")


def test_requests_with_urllib3_retry_after_an_owner_sigkill_attaches_to_the_uncertain_send_and_gets_its_no_retry_error(owner, key, player, page):
    op, box = kill_after_grant(owner, page, lambda: requests_ask(owner, key))
    r = box.get("value")
    assert r is not None, box
    assert_no_retry_uncertain(r.status_code, r.headers, r.json()["error"], op)
    assert_one_uncertain_send(owner, player, op)


def test_requests_with_urllib3_retry_past_its_timeout_attaches_to_the_same_send(owner, key, player, page):
    page(ANSWER, delay_s=3)
    r = requests_ask(owner, key, timeout=2)
    assert r.status_code == 200, r.text
    assert r.json()["choices"][0]["message"]["content"] == ANSWER
    assert r.headers["x-sendledger-attached"] == "true", "a retry got the answer"
    assert_one_send(owner, player, "completed")


# curl --retry 3 --retry-all-errors: retries a timeout or a refused connection as a fresh
# request (an HTTP status is not an error to it without --fail: it prints the answer).

def curl_ask(owner, key, tmp_path, max_time):
    head = tmp_path / "curl-head.txt"
    out = subprocess.run(
        ["curl", "-sS", "--retry", "3", "--retry-all-errors", "--max-time", str(max_time),
         "-D", str(head), "-H", f"authorization: Bearer {key}",
         "-H", "content-type: application/json", "-w", "\n%{http_code}",
         "--data-binary", "@-", f"{owner.base_url()}/chat/completions"],
        input=json.dumps({"model": "chatgpt-tab", "messages": MESSAGES}),
        capture_output=True, text=True, timeout=120)
    body, _, code = out.stdout.rpartition("\n")
    blocks = [b for b in (head.read_text() if head.exists() else "").split("\r\n\r\n") if b.strip()]
    last = blocks[-1] if blocks else ""  # the last attempt's
    headers = {k.strip().lower(): v.strip() for k, _, v in
               (line.partition(":") for line in last.splitlines()[1:])}
    assert code.isdigit(), (out.returncode, out.stdout, out.stderr)
    return out.returncode, int(code), json.loads(body) if body.strip() else None, headers


def test_curl_retry_gets_the_pages_answer_from_one_post(owner, key, player, page, tmp_path):
    page(ANSWER)
    rc, status, body, _ = curl_ask(owner, key, tmp_path, max_time=60)
    assert (rc, status) == (0, 200), body
    assert body["choices"][0]["message"]["content"] == ANSWER
    assert_one_send(owner, player, "completed")


def test_curl_retry_after_an_owner_sigkill_attaches_to_the_uncertain_send_and_gets_its_no_retry_error(owner, key, player, page, tmp_path):
    op, box = kill_after_grant(owner, page, lambda: curl_ask(owner, key, tmp_path, max_time=60))
    rc, status, body, headers = box["value"]
    assert rc == 0, box
    assert_no_retry_uncertain(status, headers, body["error"], op)
    assert_one_uncertain_send(owner, player, op)


def test_curl_retry_past_its_max_time_attaches_to_the_same_send(owner, key, player, page, tmp_path):
    page(ANSWER, delay_s=3)
    rc, status, body, headers = curl_ask(owner, key, tmp_path, max_time=2)
    assert (rc, status) == (0, 200), body
    assert body["choices"][0]["message"]["content"] == ANSWER
    assert headers.get("x-sendledger-attached") == "true", "a retry got the answer"
    assert_one_send(owner, player, "completed")
