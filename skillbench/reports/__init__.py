"""Self-describing report folders: the papermill runner, manifests, HTML and notebook helpers."""
