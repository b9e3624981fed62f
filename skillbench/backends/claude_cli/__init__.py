"""The Claude Code CLI family: sessions, stream-json, the environment, install and login."""
