"""`--auth login`: a subscription user's Claude Code login, made available to an isolated HOME.

A run's HOME is a fresh folder so that the user's skills, plugins and settings never leak in.
A subscription (Pro/Max/Team) login lives in that HOME, though: on Linux and Windows in
`<config>/.credentials.json`, plus the account fields of `.claude.json` (`<config>` is
`$CLAUDE_CONFIG_DIR`, else `~/.claude`; `.claude.json` is `$CLAUDE_CONFIG_DIR/.claude.json`,
else `~/.claude.json`). With `auth="login"` only those are copied into the isolated config dir
(file mode 0600) and removed with the run's folder; nothing else of the user's config is.

On macOS the login is in the keychain and cannot be copied: run `claude setup-token` and set
`CLAUDE_CODE_OAUTH_TOKEN`, which passes through the environment like an API key.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from skillbench.errors import InputError

AuthMode = Literal["env", "login"]
AUTH_MODES: tuple[str, ...] = ("env", "login")
AUTH_ENV = "SKILLBENCH_CLAUDE_AUTH"
"""The default of `auth` when none is given (every command and notebook that runs the CLI)."""
CREDENTIALS_FILE = ".credentials.json"
CONFIG_FILE = ".claude.json"
#: The fields of `.claude.json` that describe the logged-in account (nothing else is copied).
ACCOUNT_FIELDS = ("oauthAccount", "userID", "hasCompletedOnboarding")
#: Variables left out of a run under `--auth login`, so the CLI uses the login, not a key.
LOGIN_DROPS = frozenset({"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"})


@dataclass(frozen=True)
class Login:
    """Where the caller's login was found: the credentials file and the account fields."""

    credentials: Path
    account: dict[str, Any]


def check_auth(auth: str | None) -> AuthMode:
    """`auth` (None: `$SKILLBENCH_CLAUDE_AUTH`, else `env`) if it is `env` or `login`, else
    InputError naming `--auth` (or the variable)."""
    source = "--auth"
    if auth is None:
        auth = os.environ.get(AUTH_ENV) or "env"
        source = f"${AUTH_ENV}"
    auth = auth.strip().lower()
    if auth not in AUTH_MODES:
        raise InputError(f"must be one of {', '.join(AUTH_MODES)}, got {auth!r}", path=source)
    return "login" if auth == "login" else "env"


def user_config_paths(environ: dict[str, str] | None = None) -> tuple[Path, Path]:
    """The caller's (credentials file, `.claude.json`) paths."""
    env = dict(os.environ if environ is None else environ)
    config_dir = env.get("CLAUDE_CONFIG_DIR")
    if config_dir:
        base = Path(config_dir).expanduser()
        return base / CREDENTIALS_FILE, base / CONFIG_FILE
    home = Path(env.get("HOME") or Path.home()).expanduser()
    return home / ".claude" / CREDENTIALS_FILE, home / CONFIG_FILE


def find_login(environ: dict[str, str] | None = None) -> Login:
    """The caller's login. InputError naming `--auth` when there is none (before any run)."""
    credentials, config = user_config_paths(environ)
    if not credentials.is_file():
        raise InputError(
            f"no Claude Code login found at {credentials} (log in with `claude` then `/login`; "
            "on macOS the login is in the keychain: run `claude setup-token` and set "
            "CLAUDE_CODE_OAUTH_TOKEN instead)",
            path="--auth",
        )
    try:
        parsed = json.loads(credentials.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        raise InputError(
            f"the Claude Code login at {credentials} is not readable JSON", path="--auth"
        ) from None
    if not isinstance(parsed, dict) or not parsed:
        raise InputError(f"the Claude Code login at {credentials} is empty", path="--auth")
    account: dict[str, Any] = {}
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        data = {}
    if isinstance(data, dict):
        account = {k: data[k] for k in ACCOUNT_FIELDS if k in data}
    return Login(credentials=credentials, account=account)


def install_login(login: Login, config_dir: Path) -> list[Path]:
    """Copy the credentials and the account fields into an isolated config dir (mode 0600).
    Returns the files written (to be removed with the run's folder)."""
    config_dir.mkdir(parents=True, exist_ok=True)
    written = [config_dir / CREDENTIALS_FILE]
    _write_private(written[0], login.credentials.read_bytes())
    if login.account:
        written.append(config_dir / CONFIG_FILE)
        _write_private(written[1], json.dumps(login.account).encode("utf-8"))
    return written


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
