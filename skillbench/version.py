"""The package version, importable without the public API's lazy names."""

__version__ = "0.1.0"
