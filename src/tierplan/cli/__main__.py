"""`python -m tierplan.cli` runs the `tierplan` command."""

from tierplan.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
