"""skillbench: measure Agent Skills — validation, trigger evals, description improvement, behavior evals."""

__version__ = "0.1.0"

__all__ = ["__version__"]
