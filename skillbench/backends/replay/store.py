"""Stored templates: one JSON file per template key, beside the call cache in use
(`<cache dir>/replay-templates/<key>.json`, `templates_dir`), captured on a miss.

One store for every agent: the key (`Agent.template_key`) names the agent, so the agents share
the folder. A damaged file, or one of another format than its agent's current one, counts as
missing (captured again). One failed capture per skill set, not one per run: the failure is
remembered for the store's life.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from skillbench.backends.base import SkillEntry
from skillbench.backends.replay.agent import Agent
from skillbench.backends.replay.capture import capture_template
from skillbench.backends.replay.template import ReplayTemplate
from skillbench.errors import BackendError

LOG = logging.getLogger(__name__)


def templates_dir(cache_path: str | os.PathLike[str] | None = None) -> Path:
    """`replay-templates/` beside the call cache in use: `cache_path` (what `--cache` gave),
    else the default cache (`$SKILLBENCH_CACHE`, else the user's cache folder), never the
    working directory, which may be read-only."""
    from skillbench.backends.cache import default_cache_path

    cache = Path(cache_path) if cache_path is not None else default_cache_path()
    return cache.parent / "replay-templates"


def beside_cache(options: dict[str, Any], cache_path: Path) -> dict[str, Any]:
    """A replaying backend's `BackendSpec.beside_cache`: its templates under
    `replay-templates/` beside the call cache in use, unless `template_dir` is given."""
    if "template_dir" in options:
        return options
    return {**options, "template_dir": templates_dir(cache_path)}


class TemplateStore:
    """Templates on disk (see the module docstring). `agent` is whose templates `lookup` and
    `get` find and capture; `load` and `save` take any agent's."""

    def __init__(
        self, folder: str | os.PathLike[str] | None = None, agent: Agent | None = None
    ) -> None:
        self.folder = Path(folder) if folder is not None else templates_dir(None)
        self.agent = agent
        self.captures = 0
        self._lock = threading.Lock()
        self._memory: dict[str, ReplayTemplate] = {}
        self._failed: dict[str, str] = {}

    def path(self, key: str) -> Path:
        """Where the template of `key` lives."""
        return self.folder / f"{key}.json"

    def load(self, key: str) -> ReplayTemplate | None:
        """The stored template, or None (a damaged file, another key's, or one of another
        format than its agent's, counts as missing)."""
        if key in self._memory:
            return self._memory[key]
        file = self.path(key)
        if not file.is_file():
            return None
        try:
            template = ReplayTemplate.model_validate_json(file.read_text(encoding="utf-8"))
            agent = self.agent or template.owner()
        except (OSError, ValueError, BackendError):
            return None
        if template.key != key or template.agent != agent.name:
            return None
        if template.format != agent.template_format:
            return None
        self._memory[key] = template
        return template

    def save(self, template: ReplayTemplate) -> None:
        """Write atomically (a temporary file renamed into place)."""
        from skillbench.io import atomic_write_text

        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(self.path(template.key), template.model_dump_json(indent=1))
        self._memory[template.key] = template

    def _owner(self) -> Agent:
        if self.agent is None:
            raise BackendError("a template store without an agent finds no template")
        return self.agent

    def lookup(
        self,
        target: SkillEntry,
        catalog: Sequence[SkillEntry],
        *,
        model: str,
        cli_version: str,
        settings: Mapping[str, str],
    ) -> ReplayTemplate | None:
        """The stored template for this skill set, model, CLI version and settings (and
        whatever else the agent keys on), or None: never captured here (cache keys, dry runs)."""
        key = self._owner().template_key(target, catalog, model, cli_version, settings)
        with self._lock:
            return self.load(key)

    def get(
        self,
        binary: Path,
        target: SkillEntry,
        catalog: Sequence[SkillEntry],
        *,
        model: str,
        cli_version: str,
        settings: Mapping[str, str],
    ) -> ReplayTemplate:
        """The template for this skill set (captured once with `binary`, then stored)."""
        agent = self._owner()
        key = agent.template_key(target, catalog, model, cli_version, settings)
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
                "replay template %s: miss; capturing with %s (%s %s, model %s, %s, "
                "%d catalog skills)",
                key,
                binary,
                agent.title,
                cli_version,
                model,
                target.name,
                len(catalog),
            )
            try:
                template = capture_template(
                    agent,
                    binary,
                    target,
                    catalog,
                    model=model,
                    cli_version=cli_version,
                    settings=settings,
                )
            except BackendError as exc:
                self._failed[key] = str(exc)
                raise
            self.save(template)
            return template
