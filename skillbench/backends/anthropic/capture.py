"""Capture the request Claude Code itself sends for a skill set, once, as a replay template.

The installed `claude` CLI runs once in print mode in a throwaway project (the skills written
under `.claude/skills/`), with an isolated HOME, a dummy key and `ANTHROPIC_BASE_URL` pointing at a
loopback capture server that speaks just enough of the streaming Messages API to let the CLI
finish (every model call gets a short `end_turn` text). The first request whose tools include
`Skill` is the template: its body (system blocks, tools, messages, thinking, max_tokens,
output_config, context_management) and the two headers that change the answer
(`anthropic-version`, `anthropic-beta`). The query is a sentinel, later swapped for each eval
query (`ReplayTemplate.body_for`). The CLI also writes its debug log (`--debug-file`, which
leaves the request unchanged) into the throwaway folder: when the skill listing went over its
budget it names the budget, kept as `ReplayTemplate.listing_budget`. Skills are installed under
their folder names, as Claude Code names them (`claude_install`).

The CLI runs in the caller's environment by the claude-code backend's rules (`claude_env`: the
session and HOME-config variables and the secrets left out, HOME isolated), minus what would send
it elsewhere than the capture server (`ROUTING_VARS`), so `SHELL`, a Bash timeout or disabled
betas reach the capture as they reach the user's own Claude Code.

Normalised before anything is kept: the throwaway folder becomes `/tmp/skillbench-replay`,
`metadata` (device and session ids) is dropped, `stream` is removed. No key, no home path and no
session id is ever stored. Templates are cached as JSON under the cache folder
(`<cache dir>/replay-templates/<key>.json`, beside the call cache in use: `templates_dir`), keyed by what the CLI reads: the skills' SKILL.md
files (not their evals or notes), the model, the CLI version, the environment settings that change
the request (`REQUEST_SETTINGS`), the `--project` snapshot and what `--as-user` seeds the
isolated HOME with (`as_user.py`).

Per query, `ReplayTemplate.body_for` swaps what the CLI itself derives from the day and the query:
the sentinel, today's date (the context reminder's `Today's date is …` and the WebSearch tool's
`The current month is …`) and the billing header's `cc_version` suffix (`billing_suffix`).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr

from skillbench.backends.agent_cli import AgentCall, print_call, spawn_options
from skillbench.backends.anthropic.as_user import seed_home
from skillbench.backends.anthropic.project import (
    ProjectSnapshot,
    materialise,
    replace_project_skills,
)
from skillbench.backends.anthropic.prompt_cache import swap_text
from skillbench.backends.base import SkillEntry
from skillbench.backends.claude_cli.env import (  # noqa: F401  (REQUEST_SETTINGS re-exported)
    REQUEST_SETTINGS,
    ROUTING_VARS,
    SECRET_VARS,
    build_env,
    request_settings,
)
from skillbench.backends.claude_cli.spec import CLAUDE_INSTALL_HINT
from skillbench.backends.proctree import kill_tree, unwatch, watch
from skillbench.backends.replay.capture_server import CaptureServer as ReplayCaptureServer
from skillbench.backends.scratch import make_scratch
from skillbench.backends.skill_install import cli_name, install_skills, skill_md_bytes
from skillbench.backends.user_config import UserConfig
from skillbench.errors import BackendError

LOG = logging.getLogger(__name__)
SENTINEL = "SKILLBENCH_REPLAY_SENTINEL_QUERY_7f3a"
STABLE_ROOT = "/tmp/skillbench-replay"
TEMPLATE_FORMAT = 3  # 2: captured in the caller's environment, date and billing swapped per
# query, skills installed under their folder names, the listing budget kept; 3: two branches
# each bumped 1 -> 2 for different changes, so a 2 may be either: neither is loaded; the key
# follows the install precedence, the project's own skills, settings stripped of commands
KEPT_HEADERS = ("anthropic-version", "anthropic-beta")
CAPTURE_TIMEOUT = 120.0
_BILLING = re.compile(r"(cc_version=(\d+\.\d+\.\d+[^.;\s]*)\.)([0-9a-f]+)")
#: The CLI's salt for the billing suffix (2.1.197: sha256(salt + 3 characters + version)[:3]).
_BILLING_SALT = "59cf53e54c78"
_BILLING_AT = (4, 7, 20)
_TODAY = re.compile(r"(Today['\u2019\u02bc\u02b9]s date is )(\d{4})([-/])(\d{2})\3(\d{2})\.")
_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_MONTH = re.compile(r"(The current month is )(" + "|".join(_MONTHS) + r") (\d{4})\.")
_INSTALL_HINT = (
    "the replay harness needs the Claude Code CLI to capture its request: "
    f"{CLAUDE_INSTALL_HINT}; or choose --harness minimal (an imitation, not Claude Code's "
    "request)"
)


class ReplayTemplate(BaseModel):
    """One captured request, normalised, with the sentinel where the query goes."""

    format: int = TEMPLATE_FORMAT
    key: str
    model: str
    cli_version: str
    path: str = Field(description="request path the CLI used, e.g. /v1/messages?beta=true")
    headers: dict[str, str] = Field(description="anthropic-version and anthropic-beta only")
    body: dict[str, Any]
    settings: dict[str, str] = Field(default_factory=dict)
    skills: list[str] = Field(default_factory=list, description="skill folders installed")
    project_differs: list[str] = Field(
        default_factory=list,
        description="what of the --project view could not be reproduced (git status / git log)",
    )
    listing_budget: int | None = Field(
        default=None,
        description="the skill listing budget the CLI itself logged (only when the listing "
        "exceeded it; None when everything fit)",
    )
    listing_chars: int | None = Field(
        default=None, description="the listing's size by the CLI's own count, when it logged it"
    )
    cli_mode: str = Field(
        default="print",
        description="how the CLI ran for the capture: `print` (`claude -p`) or `interactive` "
        "(in a pty, as users type into it)",
    )

    def content_hash(self) -> str:
        """SHA-256 of the headers and body (part of the replay judge's cache identity)."""
        blob = json.dumps({"h": self.headers, "b": self.body}, sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()

    def betas(self) -> list[str]:
        """The `anthropic-beta` flags, in the CLI's order."""
        raw = self.headers.get("anthropic-beta", "")
        return [flag.strip() for flag in raw.split(",") if flag.strip()]

    _sentinel_at: tuple[str | int, ...] | None = PrivateAttr(default=None)
    _derived_at: list[tuple[str | int, ...]] | None = PrivateAttr(default=None)

    def body_for(self, query: str, today: datetime.date | None = None) -> dict[str, Any]:
        """The body Claude Code would send for `query` on `today`: the sentinel replaced by
        `query` (JSON-safe: only string values are touched, so quotes or backslashes in the
        query cannot break the document), the billing header's suffix computed for `query`
        (`billing_suffix`) and, when `today` is given, the date texts set to it (`swap_date`).

        Only the containers on the way to the edited strings are copied; the rest (tools,
        system prompt: ~100 kB) is shared with the template, so the result is read-only below
        its top level. A body without exactly one sentinel string is copied whole."""
        at = self._sentinel_at if self._sentinel_at is not None else self._find_sentinel()
        if self._derived_at is None:
            self._derived_at = _paths_where(self.body, _is_derived)
        if not at:
            root: dict[str, Any] = dict(swap_text(self.body, SENTINEL, query))
        else:
            root = dict(self.body)
            _edit(root, at, lambda text: text.replace(SENTINEL, query))
        for path in self._derived_at:
            _edit(root, path, lambda text: swap_date(swap_billing(text, query), today))
        return root

    def _find_sentinel(self) -> tuple[str | int, ...]:
        """The path (keys and indices) to the one string holding the sentinel; () if not one."""
        found = _paths_where(self.body, lambda text: SENTINEL in text)
        self._sentinel_at = found[0] if len(found) == 1 and found[0] else ()
        return self._sentinel_at

    def sentinel_count(self) -> int:
        """How many strings of the body hold the sentinel (1 for a well-formed capture)."""
        return json.dumps(self.body, ensure_ascii=False).count(SENTINEL)


def _paths_where(value: Any, test: Callable[[str], bool]) -> list[tuple[str | int, ...]]:
    """The paths (keys and indices) to every string of `value` that passes `test`."""
    found: list[tuple[str | int, ...]] = []

    def walk(item: Any, path: tuple[str | int, ...]) -> None:
        if isinstance(item, str):
            if test(item):
                found.append(path)
        elif isinstance(item, list):
            for index, child in enumerate(item):
                walk(child, (*path, index))
        elif isinstance(item, dict):
            for key, child in item.items():
                walk(child, (*path, key))

    walk(value, ())
    return found


def _edit(root: dict[str, Any], path: tuple[str | int, ...], change: Callable[[str], str]) -> None:
    """Apply `change` to the string at `path` of `root`, copying the containers on the way
    (so whatever `root` shares with a template stays untouched)."""
    node: Any = root
    for step in path[:-1]:
        child = node[step]
        node[step] = child = list(child) if isinstance(child, list) else dict(child)
        node = child
    node[path[-1]] = change(node[path[-1]])


def _is_derived(text: str) -> bool:
    """Whether a string holds something the CLI derives from the query or the day."""
    return bool(_BILLING.search(text) or _TODAY.search(text) or _MONTH.search(text))


def billing_suffix(prompt: str, version: str) -> str:
    """The suffix Claude Code 2.1.197 appends to `cc_version=<version>.` in its billing header:
    the first 3 hex digits of SHA-256 over a fixed salt, the prompt's UTF-16 code units at 4, 7
    and 20 ("0" past its end) and the version (the rule of the CLI's own code)."""
    units = prompt.encode("utf-16-le")

    def unit(index: int) -> str:
        if 2 * index + 2 > len(units):
            return "0"
        # one code unit; a lone surrogate is hashed as U+FFFD, as JavaScript's UTF-8 encoder does
        return units[2 * index : 2 * index + 2].decode("utf-16-le", errors="replace")

    picked = "".join(unit(index) for index in _BILLING_AT)
    blob = f"{_BILLING_SALT}{picked}{version}".encode()
    return hashlib.sha256(blob).hexdigest()[:3]


def swap_billing(text: str, query: str) -> str:
    """`text` with every `cc_version=<version>.<suffix>` suffix computed for `query`."""
    return _BILLING.sub(lambda m: m.group(1) + billing_suffix(query, m.group(2)), text)


def swap_date(text: str, today: datetime.date | None) -> str:
    """`text` with the CLI's date texts set to `today` (unchanged when None): `Today's date is
    YYYY-MM-DD.` (separator and apostrophe kept) and `The current month is <Month> <YYYY>.`"""
    if today is None:
        return text

    def day(m: re.Match[str]) -> str:
        sep = m.group(3)
        return f"{m.group(1)}{today.year:04d}{sep}{today.month:02d}{sep}{today.day:02d}."

    text = _TODAY.sub(day, text)
    return _MONTH.sub(lambda m: f"{m.group(1)}{_MONTHS[today.month - 1]} {today.year}.", text)


def skill_set_hash(target: SkillEntry, catalog: Sequence[SkillEntry]) -> str:
    """SHA-256 over what the CLI reads of the installed skills: each installed folder name and
    its SKILL.md as installed (`skill_md_bytes`: frontmatter with `when_to_use`, the description
    under test, the body), in the order of install precedence: the target first, then the
    catalog, the first entry of a folder name winning (as `install_skills` does), so which of
    two same-named folders is installed is part of the key. Other files of a skill folder
    (evals/, notes, scripts) are not read for the request, so adding or editing them keeps the
    template."""
    installed: dict[str, str] = {}
    for entry in (target, *catalog):
        installed.setdefault(cli_name(entry), hashlib.sha256(skill_md_bytes(entry)).hexdigest())
    blob = json.dumps(sorted(installed.items()), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def template_key(
    target: SkillEntry,
    catalog: Sequence[SkillEntry],
    model: str,
    cli_version: str,
    settings: Mapping[str, str],
    project: ProjectSnapshot | str | None = None,
    cli_mode: str = "print",
    as_user: UserConfig | None = None,
) -> str:
    """The cache key of a template: skill set content, model, CLI version, settings, the
    `--project` snapshot (its `ProjectSnapshot.key`; None without a project), the CLI mode
    (only when not `print`, so the keys of print-mode templates stored before are unchanged)
    and what `--as-user` seeds the HOME with (`UserConfig.key`, only when given)."""
    if isinstance(project, ProjectSnapshot):
        project = project.key()
    fields: dict[str, Any] = {
        "format": TEMPLATE_FORMAT,
        "skills": skill_set_hash(target, catalog),
        "model": model,
        "cli": cli_version,
        "settings": dict(sorted(settings.items())),
    }
    if project is not None:
        fields["project"] = project
    if cli_mode != "print":
        fields["cli_mode"] = cli_mode
    if as_user is not None:
        fields["as_user"] = as_user.key()
    blob = json.dumps(fields, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]


def templates_dir(cache_path: str | os.PathLike[str] | None = None) -> Path:
    """`replay-templates/` beside the call cache in use: `cache_path` (what `--cache` gave),
    else the default cache (`$SKILLBENCH_CACHE`, else the user's cache folder), never the
    working directory, which may be read-only."""
    from skillbench.backends.cache import default_cache_path

    cache = Path(cache_path) if cache_path is not None else default_cache_path()
    return cache.parent / "replay-templates"


def beside_cache(options: dict[str, Any], cache_path: Path) -> dict[str, Any]:
    """The anthropic spec's `beside_cache`: on the replay harness (the default), its captured
    templates and batch ledgers go beside the call cache in use (unless `template_dir` is given)."""
    if "template_dir" in options or (options.get("harness") or "replay") != "replay":
        return options
    return {**options, "template_dir": templates_dir(cache_path)}


def default_template_dir() -> Path:
    """`replay-templates/` beside the default call cache (see `templates_dir`)."""
    return templates_dir(None)


# -- the capture server ------------------------------------------------------------------------


def _sse(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def text_reply_stream(model: str, text: str = "OK.") -> bytes:
    """A complete streamed `end_turn` text reply (what the capture server answers)."""
    message: dict[str, Any] = {
        "id": "msg_capture_" + uuid.uuid4().hex[:12],
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 1},
    }
    return b"".join(
        [
            _sse("message_start", {"type": "message_start", "message": message}),
            _sse(
                "content_block_start",
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
            ),
            _sse(
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "text_delta", "text": text},
                },
            ),
            _sse("content_block_stop", {"type": "content_block_stop", "index": 0}),
            _sse(
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                    "usage": {"output_tokens": 2},
                },
            ),
            _sse("message_stop", {"type": "message_stop"}),
        ]
    )


_NOT_FOUND = b'{"type":"error","error":{"type":"not_found_error"}}'


class ClaudeReplier:
    """Claude Code as the capture server's `CaptureReplier`: the Messages API answered with a
    short text reply, `count_tokens` with a count, anything else a 404; its own request is the
    first whose tools include `Skill`."""

    kept_headers = KEPT_HEADERS

    def capture_reply(self, method: str, path: str, body: dict[str, Any]) -> tuple[int, str, bytes]:
        """The loopback Messages API's answer."""
        if method == "HEAD":
            return 200, "text/plain", b""
        path = path.split("?", 1)[0]
        if method == "POST" and path.endswith("/count_tokens"):
            return 200, "application/json", b'{"input_tokens": 100}'
        if method != "POST" or not path.endswith("/v1/messages"):
            return 404, "application/json", _NOT_FOUND
        model = str(body.get("model") or "claude")
        if body.get("stream"):
            return 200, "text/event-stream", text_reply_stream(model)
        reply = {
            "id": "msg_capture",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": "OK."}],
            "stop_reason": "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 2},
        }
        return 200, "application/json", json.dumps(reply).encode()

    def is_agent_request(self, path: str, body: dict[str, Any]) -> bool:
        """A Messages request offering the `Skill` tool."""
        tools = body.get("tools") or []
        return any(isinstance(t, dict) and t.get("name") == "Skill" for t in tools)


class CaptureServer(ReplayCaptureServer):
    """The capture server answering as Claude Code's Messages API (`ClaudeReplier`); the value
    for ANTHROPIC_BASE_URL is its `base_url`."""

    def __init__(self) -> None:
        super().__init__(ClaudeReplier())

    def skill_request(self) -> tuple[str, dict[str, str], dict[str, Any]] | None:
        """The first request whose tools include `Skill`."""
        return self.agent_request()


# -- capture -----------------------------------------------------------------------------------


#: What the CLI logs (`--debug-file`) when the skill listing exceeds its budget.
_OVER_BUDGET = re.compile(r"Skill listing over budget: \d+ skills, (\d+) chars > (\d+) budget")


def logged_budget(debug_log: str) -> tuple[int, int] | None:
    """(listing characters, budget) from the CLI's debug log, when it logged going over."""
    match = _OVER_BUDGET.search(debug_log)
    return (int(match.group(1)), int(match.group(2))) if match else None


def write_skills(project: Path, target: SkillEntry, catalog: Sequence[SkillEntry]) -> list[str]:
    """Install the target and the catalog under `project/.claude/skills/` (target wins a name
    clash) exactly as the claude-code backend installs them (whole folders when known, see
    `claude_install`); returns the names installed, in order."""
    return install_skills(project, target, catalog)


def capture_env(
    home: Path,
    base_url: str,
    settings: Mapping[str, str],
    *,
    source: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The CLI's environment for a capture: the allowlisted variables of the caller's
    environment (`source`, default the process environment) by the session rules
    (`claude_env.build_env`: no key, no secret, HOME isolated), without routing variables (so no
    cloud provider's variables either), with a dummy key, the capture server as
    ANTHROPIC_BASE_URL and `settings` applied last."""
    environ = dict(os.environ if source is None else source)
    kept = {k: v for k, v in environ.items() if k not in ROUTING_VARS}
    route = {"ANTHROPIC_API_KEY": "sk-ant-skillbench-capture-dummy", "ANTHROPIC_BASE_URL": base_url}
    env = build_env(home, source=kept, route=route)
    env.update(settings)
    return env


def path_slug(path: str) -> str:
    """Claude Code's folder slug for a path (`/tmp/x.y` → `-tmp-x-y`), as in its memory path."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def normalise(value: Any, root: str) -> Any:
    """Replace the throwaway folder `root` (and its slug) by `STABLE_ROOT` in every string."""
    if isinstance(value, str):
        if root in value:
            value = value.replace(root, STABLE_ROOT)
        slug = path_slug(root)
        return value.replace(slug, path_slug(STABLE_ROOT)) if slug in value else value
    if isinstance(value, list):
        return [normalise(item, root) for item in value]
    if isinstance(value, dict):
        return {key: normalise(item, root) for key, item in value.items()}
    return value


def normalise_body(body: dict[str, Any], root: str) -> dict[str, Any]:
    """The body as kept: paths made stable, `metadata` (device/session ids) and `stream` off."""
    kept = {k: v for k, v in body.items() if k not in {"metadata", "stream"}}
    result: dict[str, Any] = normalise(kept, root)
    return result


def _run_cli(
    call: AgentCall, cwd: Path, env: dict[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """Run the capture CLI (`agent_cli` rules: prompt on stdin, dies with this process); on a
    timeout its whole process tree is killed. BackendError when it cannot start or times out."""
    try:
        proc = subprocess.Popen(
            call.argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            **spawn_options(),
        )
    except OSError as exc:
        raise BackendError(f"cannot run {call.argv[0]}: {exc}; {_INSTALL_HINT}") from None
    watch(proc.pid)
    try:
        out, err = proc.communicate(call.stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_tree(proc.pid)
        proc.kill()
        proc.communicate()
        raise BackendError(
            f"capturing Claude Code's request timed out after {timeout:g} s"
        ) from None
    finally:
        kill_tree(proc.pid)  # children left behind by a CLI that exited
        unwatch(proc.pid)
    text = (out or b"").decode("utf-8", "replace"), (err or b"").decode("utf-8", "replace")
    return subprocess.CompletedProcess(call.argv, proc.returncode, *text)


def _run_interactive(
    claude_bin: Path,
    model: str,
    debug_log: Path,
    folder: Path,
    env: dict[str, str],
    server: CaptureServer,
    timeout: float,
) -> subprocess.CompletedProcess[str]:
    """The interactive capture (`claude_cli.interactive`): the config seeded so the CLI asks
    nothing, the sentinel as its initial prompt in a pty, stopped once the Skill-offering
    request has arrived. The completed process carries what the terminal showed."""
    from skillbench.backends.claude_cli.interactive import (
        interactive_argv,
        run_interactive,
        seed_config,
    )

    seed_config(env, folder)
    flags = ["--model", model, "--debug-file", str(debug_log)]
    argv = interactive_argv(claude_bin, flags, SENTINEL)
    shown = run_interactive(argv, folder, env, lambda: server.skill_request() is not None, timeout)
    return subprocess.CompletedProcess(argv, 0, shown, "")


def capture_template(
    claude_bin: Path,
    target: SkillEntry,
    catalog: Sequence[SkillEntry],
    *,
    model: str,
    cli_version: str,
    settings: Mapping[str, str] | None = None,
    timeout: float = CAPTURE_TIMEOUT,
    project: ProjectSnapshot | None = None,
    cli_mode: str = "print",
    as_user: UserConfig | None = None,
) -> ReplayTemplate:
    """Run the CLI once against the capture server and return the normalised template (in a
    copy of `project`'s view when given, see `replay_project`), in print mode (`claude -p`) or,
    with `cli_mode="interactive"`, as users type into it (`_run_interactive`); with `as_user`,
    the isolated HOME holds the user's configuration (`as_user.seed_home`).

    BackendError when the CLI fails, times out or never offers the Skill tool.
    """
    settings = dict(settings or {})
    key = template_key(target, catalog, model, cli_version, settings, project, cli_mode, as_user)
    root = make_scratch("capture").resolve()
    try:
        folder, home = root / "project", root / "home"
        differs = materialise(project, folder) if project is not None else []
        folder.mkdir(exist_ok=True)
        (home / ".claude").mkdir(parents=True)
        if as_user is not None:  # --as-user: the user's configuration, cut, in the isolated HOME
            catalog, seeded = seed_home(as_user, home, target, catalog)
            differs += seeded
        installing = list(dict.fromkeys(cli_name(s) for s in (target, *catalog)))
        differs += [
            f".claude/skills/{name}: the project's own replaced by the one under test"
            for name in replace_project_skills(folder, installing)
        ]
        names = write_skills(folder, target, catalog)
        with CaptureServer() as server:
            env = capture_env(home, server.base_url, settings)
            # the debug log names the listing budget (the request is the same with or without)
            debug_log = root / "debug.log"
            flags = ["--model", model, "--output-format", "stream-json", "--verbose"]
            flags += ["--debug-file", str(debug_log)]
            if cli_mode == "interactive":
                done = _run_interactive(claude_bin, model, debug_log, folder, env, server, timeout)
            else:
                done = _run_cli(print_call(claude_bin, flags, SENTINEL), folder, env, timeout)
            found = server.skill_request()
        if found is None:
            tail = (done.stderr or done.stdout or "").strip()[-400:]
            raise BackendError(
                f"the claude CLI (exit {done.returncode}) made no request offering the Skill tool; "
                f"cannot capture a replay template. CLI said: {tail!r}"
            )
        path, headers, body = found
        try:
            over = logged_budget(debug_log.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            over = None
        template = ReplayTemplate(
            key=key,
            model=model,
            cli_version=cli_version,
            path=path,
            headers=headers,
            body=normalise_body(body, str(root)),
            settings=settings,
            skills=names,
            project_differs=differs,
            listing_budget=over[1] if over else None,
            listing_chars=over[0] if over else None,
            cli_mode=cli_mode,
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if template.sentinel_count() != 1:
        raise BackendError(
            f"the captured request holds the sentinel query {template.sentinel_count()} times "
            "(expected once): this CLI version is not supported by the replay harness"
        )
    return template


class TemplateStore:
    """Replay templates on disk (one JSON file per key), captured on a miss. Other agents'
    stores (`backends.agents.capture`) reuse it with their own `template_class`."""

    template_class: type[ReplayTemplate] | Any = ReplayTemplate
    template_format: int = TEMPLATE_FORMAT

    def __init__(self, folder: str | os.PathLike[str] | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_template_dir()
        self.captures = 0
        self._lock = threading.Lock()
        self._memory: dict[str, ReplayTemplate] = {}
        self._failed: dict[str, str] = {}

    def path(self, key: str) -> Path:
        """Where the template of `key` lives."""
        return self.folder / f"{key}.json"

    def load(self, key: str) -> ReplayTemplate | None:
        """The stored template, or None (a damaged file counts as missing)."""
        if key in self._memory:
            return self._memory[key]
        file = self.path(key)
        if not file.is_file():
            return None
        try:
            template = self.template_class.model_validate_json(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if template.key != key or template.format != self.template_format:
            return None
        self._memory[key] = template
        return template

    def save(self, template: ReplayTemplate) -> None:
        """Write atomically (a temporary file renamed into place)."""
        from skillbench.io import atomic_write_text

        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path(template.key), template.model_dump_json(indent=1))
        self._memory[template.key] = template

    def lookup(
        self,
        target: SkillEntry,
        catalog: Sequence[SkillEntry],
        *,
        model: str,
        cli_version: str,
        settings: Mapping[str, str],
        project: ProjectSnapshot | None = None,
        cli_mode: str = "print",
        as_user: UserConfig | None = None,
    ) -> ReplayTemplate | None:
        """The stored template for this skill set, model, CLI version, settings, project, CLI
        mode and user configuration, or None (never captured here: for cache keys and dry
        runs)."""
        key = template_key(
            target, catalog, model, cli_version, settings, project, cli_mode, as_user
        )
        with self._lock:
            return self.load(key)

    def get(
        self,
        claude_bin: Path,
        target: SkillEntry,
        catalog: Sequence[SkillEntry],
        *,
        model: str,
        cli_version: str,
        settings: Mapping[str, str],
        project: ProjectSnapshot | None = None,
        cli_mode: str = "print",
        as_user: UserConfig | None = None,
    ) -> ReplayTemplate:
        """The template for this skill set, model, CLI version, settings, project, CLI mode and
        user configuration (captured once)."""
        key = template_key(
            target, catalog, model, cli_version, settings, project, cli_mode, as_user
        )
        with self._lock:
            found = self.load(key)
            if found is not None:
                LOG.debug(
                    "replay template %s: hit (%s, %d catalog skills)",
                    key,
                    target.name,
                    len(catalog),
                )
                return found
            if key in self._failed:  # one failed capture per skill set, not one per run
                LOG.debug("replay template %s: capture failed before, not retried", key)
                raise BackendError(self._failed[key])
            self.captures += 1
            LOG.debug(
                "replay template %s: miss; capturing with %s (Claude Code %s, model %s, %s, "
                "%d catalog skills)",
                key,
                claude_bin,
                cli_version,
                model,
                target.name,
                len(catalog),
            )
            try:
                template = capture_template(
                    claude_bin,
                    target,
                    catalog,
                    model=model,
                    cli_version=cli_version,
                    settings=settings,
                    project=project,
                    cli_mode=cli_mode,
                    as_user=as_user,
                )
            except BackendError as exc:
                self._failed[key] = str(exc)
                raise
            self.save(template)
            return template


def install_hint() -> str:
    """What to do when no CLI is installed (for error messages)."""
    return _INSTALL_HINT


def which_claude() -> str | None:
    """`claude` on PATH, if any."""
    return shutil.which("claude")
