"""A real uvicorn serving a fresh SQLite file, and Debian's Chromium driven by Playwright."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.serving import serving

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]
SCREENSHOTS = Path(__file__).parent / "screenshots"


@pytest.fixture
def server(tmp_path):
    """`tierplan serve` on a free port: migrates, loads the demo campaign, serves."""
    with serving(f"sqlite:///{tmp_path / 'browser.db'}", tmp_path / "server.log") as base:
        yield base



@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing: `make test` installs Debian's chromium package")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    # the Content-Security-Policy must not block anything a page of ours needs
    page.on("console", lambda message: errors.append(message.text)
            if "Content Security Policy" in message.text else None)
    yield page
    context.close()
    assert errors == [], f"JavaScript errors or CSP violations on the page: {errors}"


@pytest.fixture
def screenshot(page):
    SCREENSHOTS.mkdir(exist_ok=True)

    def take(name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return take
