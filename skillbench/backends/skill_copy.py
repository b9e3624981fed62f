"""Copying a skill folder somewhere else without following a link out of it or filling the disk.

Issue 27: copying a session's skill with the links followed filled 5.5 GB of temp disk through a
`.`/`..` link loop, and a 1 GiB sparse file was written out whole for every run. The rules here:

- a symbolic link is copied AS A LINK (never followed) when it resolves inside the skill folder,
  re-aimed relative to its own folder (an absolute link into the source would otherwise let an
  agent write to the evaluator's original files); a link leading out of the folder is left out
  (the agent must not reach the evaluator's files through it), with a warning naming it;
- regular files are copied while their total stays within `max_bytes` (`--max-copy`, default
  `DEFAULT_MAX_COPY`); a file that would pass the limit is left out, with a warning naming it and
  its size. Anything else (a FIFO, a socket, a device) is left out too.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from skillbench.errors import InputError

__all__ = [
    "DEFAULT_MAX_COPY",
    "CopyPlan",
    "copy_plan",
    "copy_tree",
    "human_size",
    "parse_size",
]

#: What one copy of a skill folder may hold (100 MiB): skills are text, scripts and small data.
DEFAULT_MAX_COPY = 100 * 1024 * 1024
_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*$", re.IGNORECASE)


def parse_size(text: str, option: str = "--max-copy") -> int:
    """Bytes of `500M`, `2G`, `1.5GiB`, `4096` (binary units); InputError naming `option`."""
    match = _SIZE.match(text)
    if match is None:
        raise InputError(
            f"must be a size such as 500M, 2G or a number of bytes, got {text!r}", path=option
        )
    value = int(float(match.group(1)) * _UNITS[match.group(2).upper()])
    if value < 1:
        raise InputError(f"must be at least 1 byte, got {text!r}", path=option)
    return value


def human_size(size: int) -> str:
    """`1.0 GiB`, `12.5 MiB`, `300 B`."""
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


@dataclass
class CopyPlan:
    """What `copy_tree` copies: files, folders and links (relative POSIX paths; each link with
    the relative target it gets), the bytes of the files, and one warning per path left out."""

    files: list[str] = field(default_factory=list)
    links: dict[str, str] = field(default_factory=dict)
    dirs: list[str] = field(default_factory=list)
    total: int = 0
    warnings: list[str] = field(default_factory=list)
    skipped: list[tuple[str, int]] = field(default_factory=list)


def _ignored(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for pattern in patterns)


def _target_inside(link: Path, root: Path) -> str | None:
    """The target of the link at `link` relative to its folder when it resolves inside `root`,
    else None (a loop or a missing target is judged by the path it names)."""
    target = Path(os.path.realpath(link))
    if target != root and not target.is_relative_to(root):
        return None
    return os.path.relpath(target, os.path.realpath(link.parent))


def copy_plan(
    source: Path,
    *,
    max_bytes: int = DEFAULT_MAX_COPY,
    ignore: Iterable[str] = (),
    skip: Iterable[str] = (),
    label: str = "",
    option: str | None = "--max-copy",
) -> CopyPlan:
    """Walk `source` (links never followed; names matching `ignore` patterns and the relative
    paths in `skip` left out silently) and decide what to copy, in sorted order. `label`
    prefixes the paths in warnings (e.g. the skill's name); `option`, the command-line option
    that raises the limit, is named in them (None: the caller has none)."""
    root = Path(os.path.realpath(source))
    patterns = tuple(ignore)
    skipped = set(skip)
    plan = CopyPlan()
    prefix = f"{label}/" if label else ""
    for current, dirs, names in os.walk(root, followlinks=False):
        here = Path(current)
        base = here.relative_to(root).as_posix()
        base = "" if base == "." else base + "/"
        dirs[:] = sorted(d for d in dirs if not _ignored(d, patterns) and base + d not in skipped)
        linked = [d for d in dirs if (here / d).is_symlink()]
        dirs[:] = [d for d in dirs if d not in linked]
        plan.dirs.extend(base + d for d in dirs)
        for name in sorted([*names, *linked]):
            rel = base + name
            if _ignored(name, patterns) or rel in skipped:
                continue
            path = here / name
            try:
                info = path.lstat()
            except OSError:
                continue
            if stat.S_ISLNK(info.st_mode):
                target = _target_inside(path, root)
                if target is not None:
                    plan.links[rel] = target
                else:
                    plan.warnings.append(
                        f"{prefix}{rel}: a link leading out of the skill folder; left out"
                    )
            elif not stat.S_ISREG(info.st_mode):
                plan.warnings.append(f"{prefix}{rel}: not a regular file; left out")
            elif plan.total + info.st_size > max_bytes:
                plan.skipped.append((rel, info.st_size))
                plan.warnings.append(
                    f"{prefix}{rel} ({human_size(info.st_size)}) would pass the copy limit of "
                    f"{human_size(max_bytes)}{f' ({option})' if option else ''}; left out"
                )
            else:
                plan.files.append(rel)
                plan.total += info.st_size
    return plan


def copy_tree(
    source: Path,
    dest: Path,
    *,
    max_bytes: int = DEFAULT_MAX_COPY,
    ignore: Iterable[str] = (),
    skip: Iterable[str] = (),
    label: str = "",
    option: str | None = "--max-copy",
) -> CopyPlan:
    """Copy `source` into `dest` (created as needed) by the rules of this module; returns the
    plan carried out (its warnings name what was left out)."""
    plan = copy_plan(
        source, max_bytes=max_bytes, ignore=ignore, skip=skip, label=label, option=option
    )
    root = Path(os.path.realpath(source))
    dest.mkdir(parents=True, exist_ok=True)
    for rel in plan.dirs:
        (dest / rel).mkdir(parents=True, exist_ok=True)
    for rel, target in plan.links.items():
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, out)
    for rel in plan.files:
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, out, follow_symlinks=False)
    return plan
