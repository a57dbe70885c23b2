"""dialectbench: evaluate NLP and speech systems across dialects and language varieties."""

__version__ = "0.1.0"
