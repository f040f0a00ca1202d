"""`python -m app.cli` runs the `tierplan` command."""

from app.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
