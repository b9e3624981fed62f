"""The `codex` backend: Codex CLI's own first request replayed through the openai SDK."""
