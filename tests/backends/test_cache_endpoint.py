"""Answers are keyed by where they came from: a mock's answers never stand in for the real API's."""

from __future__ import annotations

import pytest

from skillbench.backends.anthropic.sdk import AnthropicJudge, AnthropicTextModel
from skillbench.backends.base import SkillEntry, TriggerRequest, cache_key, public_endpoint
from skillbench.backends.claude_cli.session import ClaudeCodeJudge


def test_public_endpoint_strips_credentials_query_and_trailing_slash() -> None:
    url = "https://user:pw@proxy.example:8443/v1/?token=abc#frag"
    assert public_endpoint(url) == "https://proxy.example:8443/v1"
    assert public_endpoint(None) is None


@pytest.mark.parametrize("cls", [AnthropicJudge, AnthropicTextModel])
def test_anthropic_identity_changes_with_the_endpoint(
    cls: type[AnthropicJudge] | type[AnthropicTextModel], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    real = cls(api_key="k").identity()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:8765")
    mock = cls(api_key="k").identity()
    explicit = cls(api_key="k", base_url="http://u:secret@10.0.0.1:9/").identity()
    assert real["endpoint"] == "https://api.anthropic.com"
    assert mock["endpoint"] == "http://127.0.0.1:8765"
    assert explicit["endpoint"] == "http://10.0.0.1:9" and "secret" not in str(explicit)
    request = TriggerRequest(SkillEntry("s", "d"), (), "q", run_index=0)
    keys = {cache_key(i, request.cache_fields()) for i in (real, mock, explicit)}
    assert len(keys) == 3


def test_claude_code_identity_changes_with_the_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    judge = ClaudeCodeJudge(claude_bin="/bin/true")
    monkeypatch.setattr(judge, "version", lambda: "test")
    real = judge.identity()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:8765")
    assert judge.identity() != real
