"""The planning core: pure computation over campaign values (no web, DB, clock or I/O)."""
