"""Git in a hermetic session: a global config (`GIT_CONFIG_GLOBAL`) with a fixed identity and
every remote URL rewritten (`url.<base>.insteadOf`) under one local folder, where a bare
repository waits at the path of each URL the case lists (`git.repos`); only the `file`
protocol is allowed, the system config is ignored. A push lands in the local bare repository,
a clone of an unlisted URL fails; nothing leaves the machine.

The same settings also go into the environment as `GIT_CONFIG_COUNT` / `GIT_CONFIG_KEY_<n>` /
`GIT_CONFIG_VALUE_<n>` (git's command-line level): Gemini CLI 0.61.0 sets `GIT_CONFIG_GLOBAL` to
`/dev/null` for every shell command it runs, but keeps (and appends to) those (measured)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from skillbench.hermetic.environment import GitSpec

__all__ = ["REWRITTEN_PREFIXES", "git_env", "local_path"]

#: URL prefixes rewritten under the local folder (scp-like `git@host:path` included).
REWRITTEN_PREFIXES = ("https://", "http://", "ssh://", "git://", "git@")


def local_path(url: str, remotes: Path) -> Path:
    """Where `url` points after the rewrite."""
    for prefix in REWRITTEN_PREFIXES:
        if url.startswith(prefix):
            return remotes / url[len(prefix) :]
    return Path(url)


def git_env(spec: GitSpec, folder: Path) -> dict[str, str]:
    """Write the global config under `folder`, create the listed bare repositories; the
    variables that make git use them."""
    remotes = folder / "remotes"
    remotes.mkdir(parents=True, exist_ok=True)
    for url in spec.repos:
        bare = local_path(url, remotes)
        bare.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["git", "init", "--quiet", "--bare", str(bare)],
            check=True,
            capture_output=True,
            env={
                "GIT_CONFIG_NOSYSTEM": "1",
                "GIT_CONFIG_GLOBAL": "/dev/null",
                "PATH": "/usr/bin:/bin",
            },
        )
    remotes_base = f"{remotes.as_posix()}/"
    settings = [
        ("user.name", spec.name),
        ("user.email", spec.email),
        ("init.defaultBranch", "main"),
        *((f"url.{remotes_base}.insteadOf", prefix) for prefix in REWRITTEN_PREFIXES),
    ]
    lines = [
        "[user]",
        f"\tname = {spec.name}",
        f"\temail = {spec.email}",
        "[init]",
        "\tdefaultBranch = main",
        f'[url "{remotes.as_posix()}/"]',
        *(f"\tinsteadOf = {prefix}" for prefix in REWRITTEN_PREFIXES),
    ]
    config = folder / "gitconfig"
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    counted = {"GIT_CONFIG_COUNT": str(len(settings))}
    for index, (key, value) in enumerate(settings):
        counted[f"GIT_CONFIG_KEY_{index}"] = key
        counted[f"GIT_CONFIG_VALUE_{index}"] = value
    return {
        **counted,
        "GIT_CONFIG_GLOBAL": str(config),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_ALLOW_PROTOCOL": "file",
        "GIT_AUTHOR_NAME": spec.name,
        "GIT_AUTHOR_EMAIL": spec.email,
        "GIT_COMMITTER_NAME": spec.name,
        "GIT_COMMITTER_EMAIL": spec.email,
    }
