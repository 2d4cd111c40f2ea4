"""The package version (pyproject.toml holds the same): a leaf, so cache keys read it without
importing the package root."""

__version__ = "0.1.0"
