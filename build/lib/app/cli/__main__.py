"""`python -m app.cli` runs the `tierplan` command."""

from app.cli import main

raise SystemExit(main())
