#!/usr/bin/env bash
# Move the "current release" Claude Code pin (Makefile CLAUDE_LATEST_VERSION) to VERSION (default:
# the newest on npm), install it BESIDE the other pins, show what its skill frontmatter schema
# adds or drops against the validator's list, and run the real-CLI fidelity tests on it.
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
old="$(sed -n 's/^CLAUDE_LATEST_VERSION := //p' Makefile)"
pin="$(sed -n 's/^CLAUDE_VERSION := //p' Makefile)"
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

sed -i "s/^CLAUDE_LATEST_VERSION := .*/CLAUDE_LATEST_VERSION := $version/" Makefile
touch ".tools/.claude-latest-$version"
echo "running the fidelity tests on $version"
status=0
PYTHONPATH="$PWD" "$PY" -m pytest -q -p no:cacheprovider \
  tests/backends/test_replay_fidelity_skills.py tests/backends/test_replay_fidelity_env.py \
  -k "$version" || status=$?
if [[ $status -ne 0 && $force -eq 0 ]]; then
  sed -i "s/^CLAUDE_LATEST_VERSION := .*/CLAUDE_LATEST_VERSION := $old/" Makefile
  echo "fidelity fails on $version: the pin stays at $old ($prefix kept for a look)" >&2
  exit 1
fi
echo "CLAUDE_LATEST_VERSION is now $version (fidelity tests: exit $status); commit the Makefile"
