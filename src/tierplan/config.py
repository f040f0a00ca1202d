"""Settings, read from TIERPLAN_* environment variables through get_settings()."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from tierplan.resources import resource_dir


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TIERPLAN_")

    database_url: str = Field(default_factory=lambda: f"sqlite:///{Path.cwd() / 'var' / 'tierplan.db'}")
    templates_dir: Path = Field(default_factory=lambda: resource_dir("templates"))
    static_dir: Path = Field(default_factory=lambda: resource_dir("static"))
    migrations_dir: Path = Field(default_factory=lambda: resource_dir("migrations"))
    load_demo_on_empty: bool = True
    upload_dir: Path = Field(default_factory=lambda: Path.cwd() / "var" / "uploads")
    max_upload_mb: int = 2048  # per upload, all files together
    max_body_kb: int = 1024  # any other request's body (a form, a JSON document)
    max_parses: int = 2  # uploads parsed at once by one server process; the others wait their turn
    inline_parse_mb: int = 16  # larger uploads are parsed in the background, with progress
    parse_cpu_s: int = 300  # an upload's parse (in its own process) stops past this CPU time, or twice it in wall time
    parse_memory_mb: int = 4096  # ... or past this much memory (address space)
    login_to_read: bool = False  # once users exist, reading needs a login too (changing always does)


@lru_cache
def get_settings() -> Settings:
    return Settings()
