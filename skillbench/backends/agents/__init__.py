"""Shared ground of the agent backends (opencode, Gemini CLI, Codex CLI): see docs/agents.md."""
