"""The environment of a `claude` run: the caller's passes through, sessions and HOME do not."""

from __future__ import annotations

from pathlib import Path

from skillbench.backends.claude_cli.env import (
    FIXED_ENV,
    build_env,
    is_session_var,
    secret_values,
)

CALLER = {
    "PATH": "/usr/bin",
    "HOME": "/home/ada",
    "XDG_CONFIG_HOME": "/home/ada/.config",
    "CLAUDE_CONFIG_DIR": "/home/ada/.claude-work",
    "ANTHROPIC_API_KEY": "sk-ant-secret-0123456789",
    "CLAUDE_CODE_USE_BEDROCK": "1",
    "AWS_REGION": "eu-west-1",
    "AWS_PROFILE": "research",
    "CLAUDE_CODE_USE_VERTEX": "1",
    "CLOUD_ML_REGION": "us-east5",
    "ANTHROPIC_VERTEX_PROJECT_ID": "proj-1",
    "GOOGLE_APPLICATION_CREDENTIALS": "/home/ada/gcp.json",
    "ANTHROPIC_MODEL": "claude-sonnet-4-6",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL": "eu.anthropic.claude-haiku-4-5",
    "HTTPS_PROXY": "http://proxy.corp:3128",
    "NODE_EXTRA_CA_CERTS": "/etc/corp-ca.pem",
    "ANTHROPIC_CUSTOM_HEADERS": "X-Team: research",
    "SLASH_COMMAND_TOOL_CHAR_BUDGET": "20000",
    "CLAUDECODE": "1",
    "CLAUDE_CODE_ENTRYPOINT": "cli",
    "CLAUDE_CODE_SSE_PORT": "41234",
    "CLAUDE_CODE_SESSION_ID": "abc",
    "CLAUDE_PROJECT_DIR": "/home/ada/project",
    "CLAUDE_CODE_REMOTE": "true",
    "CLAUDE_BG_SOURCE": "x",
}
MUST_PASS = (
    "CLAUDE_CODE_USE_BEDROCK",
    "AWS_REGION",
    "AWS_PROFILE",
    "CLAUDE_CODE_USE_VERTEX",
    "CLOUD_ML_REGION",
    "ANTHROPIC_VERTEX_PROJECT_ID",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "HTTPS_PROXY",
    "NODE_EXTRA_CA_CERTS",
    "ANTHROPIC_CUSTOM_HEADERS",
    "SLASH_COMMAND_TOOL_CHAR_BUDGET",
    "ANTHROPIC_API_KEY",
    "PATH",
)
SESSION = (
    "CLAUDECODE",
    "CLAUDE_CODE_ENTRYPOINT",
    "CLAUDE_CODE_SSE_PORT",
    "CLAUDE_CODE_SESSION_ID",
    "CLAUDE_PROJECT_DIR",
    "CLAUDE_CODE_REMOTE",
    "CLAUDE_BG_SOURCE",
)


def test_the_callers_environment_passes_through(tmp_path: Path) -> None:
    env = build_env(tmp_path / "home", source=CALLER)
    for name in MUST_PASS:
        assert env.get(name) == CALLER[name], name


def test_session_variables_never_pass(tmp_path: Path) -> None:
    for home in (tmp_path / "home", None):
        env = build_env(home, source=CALLER)
        for name in SESSION:
            assert name not in env, (name, home)


def test_home_and_config_are_isolated(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = build_env(home, source=CALLER)
    assert env["HOME"] == str(home)
    assert env["CLAUDE_CONFIG_DIR"] == str(home / ".claude")
    assert env["XDG_CONFIG_HOME"] == str(home / ".config")
    assert (home / ".claude").is_dir()
    assert not any("/home/ada/.c" in value for value in env.values())


def test_without_isolation_the_callers_home_stays(tmp_path: Path) -> None:
    env = build_env(None, source=CALLER)
    assert env["HOME"] == "/home/ada"
    assert env["CLAUDE_CONFIG_DIR"] == "/home/ada/.claude-work"


def test_minimal_policy_drops_the_rest(tmp_path: Path) -> None:
    env = build_env(tmp_path / "home", pass_env=False, source=CALLER)
    assert env["ANTHROPIC_API_KEY"] == CALLER["ANTHROPIC_API_KEY"]
    assert "CLAUDE_CODE_USE_BEDROCK" not in env
    assert "ANTHROPIC_MODEL" not in env


def test_fixed_drop_and_extra(tmp_path: Path) -> None:
    env = build_env(
        tmp_path / "home",
        source=CALLER,
        drop=frozenset({"ANTHROPIC_API_KEY"}),
        extra={"ANTHROPIC_BASE_URL": "http://127.0.0.1:1", "DISABLE_TELEMETRY": "0"},
    )
    assert "ANTHROPIC_API_KEY" not in env
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:1"
    assert env["DISABLE_AUTOUPDATER"] == FIXED_ENV["DISABLE_AUTOUPDATER"]
    assert env["DISABLE_TELEMETRY"] == "0"  # the caller's explicit env= wins


def test_session_variable_names() -> None:
    assert is_session_var("CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR")
    assert is_session_var("CLAUDE_CODE_IDE_HOST_OVERRIDE")
    assert not is_session_var("CLAUDE_CODE_USE_BEDROCK")
    assert not is_session_var("CLAUDE_CODE_OAUTH_TOKEN")
    assert not is_session_var("CLAUDE_CODE_MAX_OUTPUT_TOKENS")


def test_secret_values_cover_custom_headers_and_cloud_keys() -> None:
    found = secret_values(CALLER, {"AWS_SECRET_ACCESS_KEY": "aws-secret-value"})
    assert CALLER["ANTHROPIC_API_KEY"] in found
    assert CALLER["ANTHROPIC_CUSTOM_HEADERS"] in found
    assert "aws-secret-value" in found


def test_nonessential_traffic_is_the_users_setting_not_a_fixed_one(tmp_path: Path) -> None:
    """It changes the request (without it the CLI offers a DesignSync tool): passed through
    when the caller set it, never added."""
    from skillbench.backends.anthropic.capture import capture_env
    from skillbench.backends.claude_cli.env import REQUEST_SETTINGS, request_settings

    name = "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"
    assert name not in FIXED_ENV and name in REQUEST_SETTINGS
    assert name not in build_env(tmp_path / "a", source=CALLER)
    assert name not in capture_env(tmp_path / "b", "http://127.0.0.1:9", {}, source=CALLER)
    mine = {**CALLER, name: "1"}
    assert build_env(tmp_path / "c", source=mine)[name] == "1"
    assert request_settings(mine)[name] == "1"
