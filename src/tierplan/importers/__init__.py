"""Parsers of the files benchmark and profiler tools write. Pure: bytes or a stream in, core values out."""
