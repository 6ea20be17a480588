#!/usr/bin/env bash
# The OpenAI door suite: clients no one here wrote — the official `openai` packages (PyPI
# and npm), LangChain, LiteLLM, requests/urllib3, curl and the Vercel AI SDK, pinned in
# e2e/openai/requirements.txt and e2e/openai/package-lock.json — against a real
# `sendledger serve` child, the extension played over HTTP by e2e/openai/player.py.
# Installs its own packages from the registries (a venv in target/openai-venv, npm ci in
# e2e/openai); nothing else is downloaded. Owner logs go to target/e2e-logs/openai/.
#
#   scripts/test-openai.sh            every test: the six-minute answer through Node
#                                     (long.test.mjs) starts first, in the background, and
#                                     is collected at the end (≈ 7 min in all)
#   scripts/test-openai.sh WORD       python tests whose name contains WORD (pytest -k)
#
# The last line is `N passed, N failed` (scripts/test-all.sh counts it).
set -uo pipefail
cd "$(dirname "$0")/.."
for need in python3 node npm; do
  command -v "$need" >/dev/null || { echo "test-openai: $need not found: run scripts/setup.sh --test" >&2; exit 1; }
done

echo "== openai e2e: build the owner"
scripts/build-debug.sh || exit 1
logs=target/e2e-logs/openai
mkdir -p "$logs"
# The suite runs a copy: a build started meanwhile (the six-minute test overlaps the rest)
# must not change the owner under it.
bin="$logs/sendledger"
cp -f "${CARGO_TARGET_DIR:-target}/debug/sendledger" "$bin.new" && mv -f "$bin.new" "$bin" || exit 1

echo "== openai e2e: install the pinned SDKs"
venv=target/openai-venv
[[ -x $venv/bin/python ]] || python3 -m venv "$venv" || exit 1
"$venv/bin/pip" install --quiet --disable-pip-version-check -r e2e/openai/requirements.txt || exit 1
(cd e2e/openai && npm ci --no-audit --no-fund --loglevel=error) || exit 1

export SENDLEDGER_BIN="$PWD/$bin" SENDLEDGER_E2E_LOGS="$PWD/$logs" SENDLEDGER_PYTHON="$PWD/$venv/bin/python"
export LITELLM_LOCAL_MODEL_COST_MAP=True  # LiteLLM fetches a price list from the internet otherwise
long_pid=
if [[ $# -eq 0 ]]; then
  echo "== openai e2e: node, a six-minute answer (long.test.mjs), in the background"
  node --test --test-reporter=tap e2e/openai/long.test.mjs >"$logs/long.tap" 2>&1 &
  long_pid=$!
fi

echo "== openai e2e: python (openai $("$venv/bin/python" -c 'import openai; print(openai.__version__)'))"
py_args=(-p no:cacheprovider --junitxml="$logs/pytest.xml" e2e/openai)
[[ $# -gt 0 ]] && py_args+=(-k "$1")
"$venv/bin/python" -m pytest -v "${py_args[@]}"
py_status=$?
read -r py_pass py_fail < <("$venv/bin/python" - "$logs/pytest.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
try:
    s = ET.parse(sys.argv[1]).getroot()
    s = s if s.tag == "testsuite" else s.find("testsuite")
    t, f, e, k = (int(s.get(a, 0)) for a in ("tests", "failures", "errors", "skipped"))
    print(t - f - e - k, f + e)
except Exception:
    print(0, 1)
PY
)

node_pass=0; node_fail=0; node_status=0
if [[ $# -eq 0 ]]; then
  echo "== openai e2e: node (openai $(node -p "require('./e2e/openai/node_modules/openai/package.json').version"))"
  node --test --test-reporter=tap e2e/openai/door.test.mjs e2e/openai/clients.test.mjs | tee "$logs/node.tap"
  node_status=${PIPESTATUS[0]}
  echo "== openai e2e: node, the six-minute answer (waiting for long.test.mjs)"
  wait "$long_pid" || node_status=1
  cat "$logs/long.tap"
  for tap in node long; do
    node_pass=$((node_pass + $(grep -Eo '^# pass [0-9]+' "$logs/$tap.tap" | grep -Eo '[0-9]+' || echo 0)))
    node_fail=$((node_fail + $(grep -Eo '^# fail [0-9]+' "$logs/$tap.tap" | grep -Eo '[0-9]+' || echo 1)))
  done
fi

echo
passed=$((py_pass + node_pass)); failed=$((py_fail + node_fail))
[[ $py_status -ne 0 || $node_status -ne 0 ]] && [[ $failed -eq 0 ]] && failed=1
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
