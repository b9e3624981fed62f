"""The field tests' session-scoped fixtures: real transcripts of the real CLIs (field_sessions.py)."""

from field_sessions import claude_run, claude_transcripts, codex_rollouts, gemini_chats, opencode_db

__all__ = ["claude_run", "claude_transcripts", "codex_rollouts", "gemini_chats", "opencode_db"]
