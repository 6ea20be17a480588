#!/usr/bin/env bash
# The MCP suite: the official Python MCP SDK (pinned in tests/mcp/requirements.txt,
# installed into a venv under target/) drives `sendledger mcp` against a real
# `sendledger serve` child process, with the browser extension played over HTTP.
#
#   scripts/test-mcp.sh              every test
#   scripts/test-mcp.sh -k stop      pytest's own selection
#
# Needs python3 with venv (scripts/setup.sh --test installs python3-venv). The last line
# is `N passed, N failed`; a run that collected no test counts as a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
mkdir -p target
venv=target/mcp-venv

echo "== mcp: build the owner"
scripts/build-debug.sh || { echo "0 passed, 1 failed"; exit 1; }

if ! cmp -s tests/mcp/requirements.txt "$venv/requirements.txt"; then
  echo "== mcp: install the MCP client SDK (tests/mcp/requirements.txt)"
  rm -rf "$venv"
  python3 -m venv "$venv" \
    && "$venv/bin/pip" install -q --disable-pip-version-check -r tests/mcp/requirements.txt \
    && cp tests/mcp/requirements.txt "$venv/requirements.txt" \
    || { echo "test-mcp: could not install tests/mcp/requirements.txt" >&2; echo "0 passed, 1 failed"; exit 1; }
fi

echo "== mcp: tests"
log=target/test-mcp.pytest.log
SENDLEDGER_BIN="$(cd "$target" && pwd)/debug/sendledger" \
  "$venv/bin/python" -m pytest -c tests/mcp/pytest.ini --rootdir tests/mcp -rA tests/mcp "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
summary=$(grep -E '^=+ .*( passed| failed| error| no tests ran).* in [0-9.]+s' "$log" | tail -n 1)
n() { echo "$summary" | grep -Eo "[0-9]+ $1" | grep -Eo '[0-9]+' || echo 0; }
passed=$(n passed); failed=$(( $(n failed) + $(n errors?) ))
if [[ $rc -eq 5 ]]; then
  echo "test-mcp: pytest collected no test" >&2
  failed=$((failed + 1)); rc=1
elif [[ $rc -ne 0 && $failed -eq 0 ]]; then
  failed=1
fi
echo
echo "$passed passed, $failed failed"
exit $rc
