"""The replay family's shared pieces: what every agent's capture and replay is built from."""
