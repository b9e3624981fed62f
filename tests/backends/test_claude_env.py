"""The environment of a `claude` run: an allowlist (issue 38), never the caller's whole
environment; sessions and HOME do not pass; Bedrock/Vertex pass only their own variables."""

from __future__ import annotations

from pathlib import Path

from skillbench.backends.claude_cli.env import (
    FIXED_ENV,
    build_env,
    is_session_var,
    secret_values,
)

ANTHROPIC = {
    "PATH": "/usr/bin",
    "LANG": "en_GB.UTF-8",
    "LC_TIME": "de_DE.UTF-8",
    "HOME": "/home/ada",
    "XDG_CONFIG_HOME": "/home/ada/.config",
    "CLAUDE_CONFIG_DIR": "/home/ada/.claude-work",
    "ANTHROPIC_API_KEY": "sk-ant-secret-0123456789",
    "ANTHROPIC_AUTH_TOKEN": "auth-token-secret",
    "ANTHROPIC_BASE_URL": "https://gateway.corp/anthropic",
    "ANTHROPIC_MODEL": "claude-sonnet-4-6",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL": "eu.anthropic.claude-haiku-4-5",
    "HTTPS_PROXY": "http://user:pw@proxy.corp:3128",
    "NODE_EXTRA_CA_CERTS": "/etc/corp-ca.pem",
    "ANTHROPIC_CUSTOM_HEADERS": "X-Team: research",
    "SLASH_COMMAND_TOOL_CHAR_BUDGET": "20000",
    "GITHUB_TOKEN": "ghp_secretsecretsecret",
    "AWS_SECRET_ACCESS_KEY": "aws-secret-value",
    "AWS_REGION": "eu-west-1",
    "OPENAI_API_KEY": "sk-openai-secret",
    "GOOGLE_APPLICATION_CREDENTIALS": "/home/ada/gcp.json",
    "SOME_TOOL_SETTING": "x",
    "CLAUDECODE": "1",
    "CLAUDE_CODE_ENTRYPOINT": "cli",
    "CLAUDE_CODE_SSE_PORT": "41234",
    "CLAUDE_CODE_SESSION_ID": "abc",
    "CLAUDE_PROJECT_DIR": "/home/ada/project",
    "CLAUDE_CODE_REMOTE": "true",
    "CLAUDE_BG_SOURCE": "x",
}
CALLER = ANTHROPIC  # the older tests' name
ROUTE = {
    "ANTHROPIC_API_KEY": "sk-ant-api03-skillbench-dummy-x",
    "ANTHROPIC_BASE_URL": "http://127.0.0.1:5",
}
ALLOWED = (
    "PATH",
    "LANG",
    "LC_TIME",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "SLASH_COMMAND_TOOL_CHAR_BUDGET",
)
NEVER = (
    "ANTHROPIC_AUTH_TOKEN",
    "GITHUB_TOKEN",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_REGION",
    "OPENAI_API_KEY",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "SOME_TOOL_SETTING",
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


def test_a_session_gets_the_allowlist_and_the_route_only(tmp_path: Path) -> None:
    env = build_env(tmp_path / "home", source=ANTHROPIC, route=ROUTE)
    for name in ALLOWED:
        assert env.get(name) == ANTHROPIC[name], name
    for name in NEVER:
        assert name not in env, name
    assert env["ANTHROPIC_API_KEY"] == ROUTE["ANTHROPIC_API_KEY"]
    assert env["ANTHROPIC_BASE_URL"] == ROUTE["ANTHROPIC_BASE_URL"]
    # the forwarder reaches the provider: no proxy, CA or custom header in the session
    for name in ("HTTPS_PROXY", "NODE_EXTRA_CA_CERTS", "ANTHROPIC_CUSTOM_HEADERS"):
        assert name not in env, name
    secrets = [ANTHROPIC[n] for n in ("ANTHROPIC_API_KEY", *NEVER[:5], "HTTPS_PROXY")]
    assert not any(value in "\n".join(env.values()) for value in secrets)


def test_without_a_route_no_key_passes(tmp_path: Path) -> None:
    env = build_env(tmp_path / "home", source=ANTHROPIC)
    assert "ANTHROPIC_API_KEY" not in env and "ANTHROPIC_AUTH_TOKEN" not in env
    assert env["ANTHROPIC_BASE_URL"] == ANTHROPIC["ANTHROPIC_BASE_URL"]


def test_bedrock_and_vertex_pass_only_their_own_variables(tmp_path: Path) -> None:
    bedrock = build_env(tmp_path / "b", source={**ANTHROPIC, "CLAUDE_CODE_USE_BEDROCK": "1"})
    assert bedrock["CLAUDE_CODE_USE_BEDROCK"] == "1"
    assert bedrock["AWS_SECRET_ACCESS_KEY"] == "aws-secret-value"  # the documented exception
    assert bedrock["AWS_REGION"] == "eu-west-1"
    assert bedrock["HTTPS_PROXY"] == ANTHROPIC["HTTPS_PROXY"]  # it reaches AWS itself
    assert "GOOGLE_APPLICATION_CREDENTIALS" not in bedrock and "GITHUB_TOKEN" not in bedrock
    assert "ANTHROPIC_API_KEY" not in bedrock
    vertex = {**ANTHROPIC, "CLAUDE_CODE_USE_VERTEX": "1", "CLOUD_ML_REGION": "us-east5"}
    env = build_env(tmp_path / "v", source={**vertex, "ANTHROPIC_VERTEX_PROJECT_ID": "p"})
    assert env["GOOGLE_APPLICATION_CREDENTIALS"] == "/home/ada/gcp.json"
    assert env["CLOUD_ML_REGION"] == "us-east5" and env["ANTHROPIC_VERTEX_PROJECT_ID"] == "p"
    assert "AWS_SECRET_ACCESS_KEY" not in env and "AWS_REGION" not in env


def test_named_variables_pass_on_purpose_but_never_a_key(tmp_path: Path) -> None:
    mine = {**ANTHROPIC, "SKILLBENCH_PASS_ENV": "SOME_TOOL_*, ANTHROPIC_API_KEY"}
    env = build_env(tmp_path / "home", source=mine, route=ROUTE)
    assert env["SOME_TOOL_SETTING"] == "x"
    assert env["ANTHROPIC_API_KEY"] == ROUTE["ANTHROPIC_API_KEY"]
    assert "GITHUB_TOKEN" not in env


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
    env = build_env(tmp_path / "home", pass_env=False, source=CALLER, route=ROUTE)
    assert env["ANTHROPIC_API_KEY"] == ROUTE["ANTHROPIC_API_KEY"]
    assert env["PATH"] == "/usr/bin"
    assert "ANTHROPIC_MODEL" not in env


def test_fixed_drop_and_extra(tmp_path: Path) -> None:
    env = build_env(
        tmp_path / "home",
        source=CALLER,
        drop=frozenset({"ANTHROPIC_BASE_URL"}),
        extra={
            "SKILLBENCH_TEST_MARK": "m",
            "DISABLE_TELEMETRY": "0",
            "ANTHROPIC_API_KEY": "sk-ant-explicit-key",
        },
    )
    assert "ANTHROPIC_BASE_URL" not in env
    assert env["SKILLBENCH_TEST_MARK"] == "m"  # the caller's explicit env= passes
    assert env["DISABLE_AUTOUPDATER"] == FIXED_ENV["DISABLE_AUTOUPDATER"]
    assert env["DISABLE_TELEMETRY"] == "0"  # and wins over FIXED_ENV
    assert "ANTHROPIC_API_KEY" not in env  # a key, even an explicit one, goes to the forwarder


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
