"""`python -m skillbench` runs the CLI."""

from skillbench.cli import main

raise SystemExit(main())
