"""``python -m remem`` is the ``remem`` command."""

from __future__ import annotations

from remem.cli import main

raise SystemExit(main())
