"""evalgate: gate CI on research documents with deterministic checks plus LLM judges."""

__version__ = "0.1.0"
