"""`pip install <checkout>` into a fresh virtualenv outside the checkout gives a working `tierplan`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time
import urllib.request
import venv
import zipfile
from pathlib import Path

from tests.serving import free_port

CHECKOUT = Path(__file__).resolve().parent.parent.parent


def _fresh_venv(root: Path) -> Path:
    """A new virtualenv whose only extra path is this one's site-packages (the dependencies, not `app`)."""
    venv.create(root, with_pip=False)
    purelib = Path(subprocess.check_output(
        [root / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
    ).strip())
    (purelib / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return root / "bin"


def test_a_wheel_of_the_checkout_migrates_and_serves_outside_it(tmp_path):
    # a copy, so setuptools' build/ folder lands outside the checkout
    source = tmp_path / "source"
    shutil.copytree(CHECKOUT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "var", "build", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis", "screenshots"))
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(wheels),
                    str(source)], check=True, cwd=tmp_path, timeout=300)
    (wheel,) = wheels.glob("tierplan-*.whl")
    assert _missing_from(wheel) == []
    bin_dir = _fresh_venv(tmp_path / "venv")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(bin_dir / "python"), "install", "--quiet",
                    "--no-deps", str(wheel)], check=True, cwd=tmp_path, timeout=300)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "TIERPLAN_DATABASE_URL": f"sqlite:///{elsewhere / 'x.db'}"}
    where = subprocess.run([bin_dir / "python", "-c", "import app; print(app.__file__)"], cwd=elsewhere, env=env,
                           capture_output=True, text=True, check=True).stdout
    assert str(tmp_path / "venv") in where and str(CHECKOUT) not in where

    migrate = subprocess.run([bin_dir / "tierplan", "migrate"], cwd=elsewhere, env=env, capture_output=True,
                             text=True, timeout=120)
    assert migrate.returncode == 0, migrate.stderr
    assert "database at head" in migrate.stdout

    port = free_port()
    log = open(tmp_path / "serve.log", "w")
    server = subprocess.Popen([bin_dir / "tierplan", "serve", "--port", str(port)], cwd=elsewhere, env=env,
                              stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for(f"{base}/healthz", server, tmp_path / "serve.log")
        linked: set[str] = set()
        for path, expected in (("/", b"DeepSeek-V4-Flash"), ("/campaigns/1", b"short by"),
                               ("/static/app.css", b"{"), ("/static/vendor/htmx.min.js", b"htmx"),
                               ("/docs", b"swagger-ui-bundle.js"), ("/openapi.json", b'"openapi"')):
            with urllib.request.urlopen(base + path, timeout=30) as response:
                body = response.read()
                assert response.status == 200 and expected in body, path
                linked |= set(re.findall(r'(?:href|src)="(/static/[^"]+)"', body.decode()))
        assert "/static/favicon.svg" in linked
        for path in sorted(linked):  # every file a page links is served from the installed wheel
            with urllib.request.urlopen(base + path, timeout=30) as response:
                assert response.status == 200 and response.read(), path
    finally:
        server.terminate()
        server.wait(timeout=10)
        log.close()
    assert not (CHECKOUT / "var" / "x.db").exists()


def _missing_from(wheel: Path) -> list[str]:
    """The checkout's templates, static files and migrations the wheel does not hold (as app/<folder>/...)."""
    shipped = set(zipfile.ZipFile(wheel).namelist())
    return [f"app/{folder}/{path.relative_to(CHECKOUT / folder)}"
            for folder in ("templates", "static", "migrations") for path in sorted((CHECKOUT / folder).rglob("*"))
            if path.is_file() and not {"screenshots", "__pycache__"} & set(path.parts)
            and f"app/{folder}/{path.relative_to(CHECKOUT / folder)}" not in shipped]


def _wait_for(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise AssertionError("tierplan serve did not start:\n" + log.read_text()) from None
            time.sleep(0.2)


def test_the_wheel_lists_every_subpackage_of_app():
    """pyproject.toml names the packages one by one (the resource folders are mapped in): none may be missing."""
    import tomllib

    listed = set(tomllib.loads((CHECKOUT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.relative_to(CHECKOUT).parts[:-1]) for p in (CHECKOUT / "app").rglob("__init__.py")}
    assert found <= listed, found - listed
    assert os.path.isdir(CHECKOUT / "templates") and os.path.isdir(CHECKOUT / "migrations")
