"""Persistence: engine, tables and queries (the only code that knows SQL)."""
