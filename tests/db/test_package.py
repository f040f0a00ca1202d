"""`pip install <checkout>` into a fresh virtualenv outside the checkout gives a working `tierplan`."""

from __future__ import annotations

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
    """A new virtualenv whose only extra path is this one's site-packages (the dependencies, not `tierplan`)."""
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
    where = subprocess.run([bin_dir / "python", "-c", "import tierplan; print(tierplan.__file__)"], cwd=elsewhere, env=env,
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


PACKAGE = CHECKOUT / "src" / "tierplan"


def _package_files() -> set[str]:
    """Every file of src/tierplan/ (code, templates, static files, migrations), as the wheel names it."""
    return {f"tierplan/{path.relative_to(PACKAGE)}" for path in PACKAGE.rglob("*")
            if path.is_file() and "__pycache__" not in path.parts}


def _missing_from(wheel: Path) -> list[str]:
    """What the wheel and the checkout's package differ by: a file one holds and the other does not."""
    shipped = {name for name in zipfile.ZipFile(wheel).namelist() if name.startswith("tierplan/")}
    ours = _package_files()
    return sorted((ours - shipped) | (shipped - ours))


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


def test_the_package_holds_its_resources_and_its_code():
    """The package is all there is: the checkout has no code, templates or migrations outside src/tierplan."""
    files = _package_files()
    assert {"tierplan/main.py", "tierplan/templates/base.html", "tierplan/static/favicon.svg",
            "tierplan/migrations/env.py", "tierplan/text/formatting.py"} <= files
    assert not any((CHECKOUT / name).exists() for name in ("app", "templates", "static", "migrations"))
