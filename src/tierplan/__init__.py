"""tierplan: honest tiered roadmaps for LLM inference-optimization campaigns."""

__version__ = "0.1.0"
