#!/usr/bin/env bash
# Checks a run's step times against the budget in README.md ("Tests", "Budget"): each row
# of its table `| \`KEY\` | budget min | fails above min | … |`. CI runs it at the end of
# scripts/test-all.sh on the run's own target/test-times.tsv (`KEY<TAB>seconds` a line,
# "whole" for the whole run). Fails when a step, or the whole run, took longer than its
# "fails above" figure, or when a step has no row (a new step gets a budget when it is
# added); names each. Timing is checked here, on CI's own run, never in a test.
#   scripts/check-times.sh TIMES [README]
set -uo pipefail
times=${1:?usage: scripts/check-times.sh TIMES [README]}
readme=${2:-"$(dirname "$0")/../README.md"}
[[ -r $times ]] || { echo "check-times: $times cannot be read (scripts/test-all.sh writes it)" >&2; exit 1; }
# The budget rows: README table rows `| \`key\` | minutes | minutes |` (no other table of it
# has that shape).
budget=$(grep -E '^\| `[a-z]+` \| [0-9.]+ \| [0-9.]+ \|' "$readme" \
  | awk -F'|' '{ gsub(/[` ]/, "", $2); gsub(/ /, "", $3); gsub(/ /, "", $4); print $2, $3, $4 }')
[[ -n $budget ]] || { echo "check-times: no budget table found in $readme" >&2; exit 1; }
status=0
while IFS=$'\t' read -r key seconds; do
  [[ -z $key ]] && continue
  read -r _ minutes limit < <(echo "$budget" | awk -v k="$key" '$1 == k')
  if [[ -z ${limit:-} ]]; then
    echo "check-times: step \"$key\" took $seconds s and has no row in the README's budget: add one"
    status=1; continue
  fi
  took=$(awk -v s="$seconds" 'BEGIN { printf "%.1f", s / 60 }')
  if awk -v s="$seconds" -v l="$limit" 'BEGIN { exit !(s > l * 60) }'; then
    echo "check-times: OVER: $key took $took min; its budget is $minutes min and a run fails above $limit min"
    status=1
  else
    if awk -v s="$seconds" -v m="$minutes" 'BEGIN { exit !(s > m * 60) }'; then
      echo "check-times: over budget: $key took $took min (budget $minutes, fails above $limit)"
    else
      echo "check-times: $key $took min (budget $minutes, fails above $limit)"
    fi
  fi
  unset limit
done < "$times"
exit $status
