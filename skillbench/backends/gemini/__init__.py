"""The `gemini` backend: Gemini CLI's own first request replayed through google-genai."""
