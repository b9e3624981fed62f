"""Hermetic behavior runs: a per-case world of fakes (commands, MCP servers, git remotes, a
confined network, scripted answers), every call logged to the run's `calls.jsonl`."""
