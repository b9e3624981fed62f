"""The Anthropic family: the SDK backend, replay of Claude Code's request, capture, the limiter."""
