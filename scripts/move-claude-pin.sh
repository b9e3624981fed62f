#!/usr/bin/env bash
# Move the "current release" Claude Code pin (CLAUDE_LATEST in skillbench/backends/claude_cli/
# tested.py, the one declaration of the tested versions, which the Makefile reads) to VERSION
# (default: the newest on npm), install it BESIDE the other pins, show what its skill frontmatter
# schema adds or drops against the validator's list, read its listing rules (a calibration
# capture, checked against its own listings), and run the real-CLI fidelity tests on it.
# The pin is moved only when they pass (--force keeps it moved anyway). Documented in
# docs/claude-versions.md. Run from the checkout: scripts/move-claude-pin.sh [--force] [VERSION]
set -euo pipefail

cd "$(dirname "$0")/.."
force=0
if [[ "${1:-}" == "--force" ]]; then force=1; shift; fi
if [[ $# -gt 1 || "${1:-}" == -* ]]; then
  echo "usage: scripts/move-claude-pin.sh [--force] [VERSION]" >&2
  exit 2
fi
command -v npm >/dev/null || { echo "npm not found: cannot install Claude Code" >&2; exit 2; }
version="${1:-$(npm view @anthropic-ai/claude-code version)}"
if [[ ! "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "not a release version: '$version'" >&2
  exit 2
fi
tested="skillbench/backends/claude_cli/tested.py"
old="$(sed -n 's/^CLAUDE_LATEST = "\(.*\)"$/\1/p' "$tested")"
pin="$(sed -n 's/^CLAUDE_PIN = "\(.*\)"$/\1/p' "$tested")"
echo "pin $pin (kept), current release $old -> $version"

prefix=".tools/claude-$version"
if [[ ! -x "$prefix/node_modules/.bin/claude" ]]; then
  # additive: a new prefix; neither the pin in .tools/ nor the old release's prefix is touched
  mkdir -p "$prefix"
  npm install --silent --no-audit --no-fund --prefix "$prefix" "@anthropic-ai/claude-code@$version"
fi
"$prefix/node_modules/.bin/claude" --version

binary="$(readlink -f "$prefix/node_modules/.bin/claude")"
PY=".venv/bin/python"
"$PY" scripts/claude_skill_keys.py "$binary" > "$prefix/skill-keys.json"
PYTHONPATH="$PWD" "$PY" - "$prefix/skill-keys.json" "$version" <<'PYEOF'
import json, sys
from skillbench.backends.claude_cli.skill_keys import CLAUDE_CODE_SKILL_KEYS as OURS
from skillbench.validate.rules import AGENTSKILLS_KEYS
read = {item["key"] for item in json.load(open(sys.argv[1]))} | set(AGENTSKILLS_KEYS)
known = set(AGENTSKILLS_KEYS) | set(OURS.keys)
print(f"skill frontmatter keys of {sys.argv[2]} vs the claude-code profile's ({OURS.version}):")
print("  new in the CLI:", sorted(read - known) or "none")
print("  gone from the CLI:", sorted(known - read) or "none")
if read != known:
    print("  -> update the keys and CLAUDE_CODE_KEYS_VERSION in skillbench/backends/claude_cli/skill_keys.py")
PYEOF

sed -i "s/^CLAUDE_LATEST = .*/CLAUDE_LATEST = \"$version\"/" "$tested"
touch ".tools/.claude-latest-$version"
echo "reading the listing rules of $version (calibration captures, checked against its listings)"
status=0
PYTHONPATH="$PWD" "$PY" - "$prefix/node_modules/.bin/claude" "$version" <<'PYEOF' || status=$?
import sys
from pathlib import Path
from skillbench.backends.anthropic.listing_calibration import calibrate
rules = calibrate(Path(sys.argv[1]), sys.argv[2], "claude-haiku-4-5")
print(f"  budget {rules.budget} (haiku-4-5), entry cap {rules.entry_cap}, "
      f"{len(rules.builtins)} lines of its own, checked: {'; '.join(rules.checked)}")
PYEOF
echo "running the fidelity tests on $version"
PYTHONPATH="$PWD" "$PY" -m pytest -q -p no:cacheprovider \
  tests/backends/test_replay_fidelity_skills.py tests/backends/test_replay_fidelity_env.py \
  tests/backends/test_listing_calibration_real.py -k "$version" || status=$?
if [[ $status -ne 0 && $force -eq 0 ]]; then
  sed -i "s/^CLAUDE_LATEST = .*/CLAUDE_LATEST = \"$old\"/" "$tested"
  echo "fidelity fails on $version: the pin stays at $old ($prefix kept for a look)" >&2
  exit 1
fi
echo "CLAUDE_LATEST is now $version in $tested (fidelity tests: exit $status); commit it"
