"""The opencode agent (`opencode-ai` on npm) as a trigger backend: its own request, replayed."""
