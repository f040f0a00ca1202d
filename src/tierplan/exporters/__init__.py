"""Renderers of core values into documents."""
