"""Capture an agent CLI's own first request for a skill set, once, as a `ReplayTemplate`.

The pinned CLI runs once, non-interactively, in a throwaway project (the skills installed under
the agent's `skills_dir` as whole folders, `skill_install`), with an isolated HOME, a dummy key
and the agent's base URL pointing at the loopback capture server (`capture_server`), which
answers as the agent says (`Agent.capture_reply`). The first request the agent calls its own
(`Agent.is_agent_request`) is the template: path, the kept headers, the body normalised
(`Agent.normalise`: the throwaway folder made stable, ids dropped), with the sentinel where the
query goes. No key, no home path and no session id is ever stored.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Required, TypedDict

from skillbench.backends.base import SkillEntry
from skillbench.backends.replay.agent import Agent, CaptureRun, CaptureSite
from skillbench.backends.replay.capture_server import CaptureServer
from skillbench.backends.replay.template import ReplayTemplate
from skillbench.backends.scratch import make_scratch
from skillbench.backends.skill_install import install_skills
from skillbench.errors import BackendError
from skillbench.redaction import redact

CAPTURE_TIMEOUT = 120.0
"""Seconds one capture run may take."""


class CaptureOptions(TypedDict, total=False):
    """What one capture is for, beside the agent, its CLI and the skill set."""

    model: Required[str]
    cli_version: Required[str]
    settings: Mapping[str, str] | None
    timeout: float


_versions: dict[tuple[str, str, int], str] = {}


def cli_version(agent: Agent, binary: Path) -> str:
    """The CLI's version (asked once per binary file: run in a throwaway HOME, nothing but PATH,
    LANG and TMPDIR passed on, `Agent.version_env` added)."""
    try:
        stamp = os.stat(binary).st_mtime_ns
    except OSError:
        stamp = 0
    memo = (agent.name, os.fspath(binary), stamp)
    if memo not in _versions:
        _versions[memo] = _ask_version(agent, binary)
    return _versions[memo]


def _ask_version(agent: Agent, binary: Path) -> str:
    with tempfile.TemporaryDirectory(prefix="skillbench-agent-v-") as tmp:
        env = {k: os.environ[k] for k in ("PATH", "LANG", "TMPDIR") if k in os.environ}
        env.update(HOME=tmp, **agent.version_env(Path(tmp)))
        try:
            done = subprocess.run(
                agent.version_call(binary),
                capture_output=True,
                text=True,
                env=env,
                cwd=tmp,
                stdin=subprocess.DEVNULL,
                timeout=60,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise BackendError(
                f"cannot run {binary} --version: {type(exc).__name__}; {agent.install_hint()}"
            ) from None
    version = agent.parse_version(done.stdout or "")
    if done.returncode != 0 or version is None:
        raise BackendError(
            f"{binary} --version failed (exit {done.returncode}); {agent.install_hint()}"
        )
    return version


def capture_template(
    agent: Agent,
    binary: Path,
    target: SkillEntry,
    catalog: Sequence[SkillEntry],
    *,
    model: str,
    cli_version: str,
    settings: Mapping[str, str] | None = None,
    timeout: float = CAPTURE_TIMEOUT,
) -> ReplayTemplate:
    """Run the agent's CLI once against the capture server; the normalised template.

    BackendError when the CLI fails, times out or never sends its own request, or when the
    request holds the sentinel other than once."""
    settings = dict(settings or {})
    key = agent.template_key(target, catalog, model, cli_version, settings)
    site = CaptureSite(make_scratch("capture").resolve())
    try:
        differs = agent.lay_out(site, target, catalog)
        names = install_skills(
            site.project, target, agent.project_catalog(catalog), agent.skills_dir
        )
        with CaptureServer(agent) as server:
            agent.prepare(site.project, site.home, server.base_url, model)
            env = agent.capture_env(site.home, server.base_url, settings)
            code, said = agent.run_capture(CaptureRun(binary, model, site, env, server, timeout))
            found = server.agent_request()
        if found is None:
            raise BackendError(
                f"the {agent.binary} CLI (exit {code}) made no request of its own; cannot "
                f"capture a replay template. CLI said: {redact(said.strip()[-400:])!r}"
            )
        path, headers, body = found
        kept = agent.normalise(body, str(site.root))
        listed = agent.listing(kept)
        template = ReplayTemplate(
            agent=agent.name,
            format=agent.template_format,
            key=key,
            model=model,
            cli_version=cli_version,
            path=path,
            headers=headers,
            body=kept,
            settings=settings,
            skills=names,
            listing=listed.as_dict() if listed is not None else {},
            project_differs=differs,
            **agent.captured(site),
        )
    finally:
        shutil.rmtree(site.root, ignore_errors=True)
    if template.sentinel_count() != 1:
        raise BackendError(
            f"the captured {agent.title} request holds the sentinel query "
            f"{template.sentinel_count()} times (expected once): this CLI version is not "
            "supported by the replay"
        )
    return template
