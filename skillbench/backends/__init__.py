"""Model backends: how a model is asked. Each backend is one `BackendSpec` (`spec.py`) registered
through the `skillbench.backends` entry-point group, in family sub-packages (`anthropic/`,
`claude_cli/`, `offline/`); the rest of skillbench asks the spec, never the name."""
