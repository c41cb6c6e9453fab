"""The harness's version: one place, read by the package, its metadata and pyproject.toml."""

__version__ = "0.1.0"
