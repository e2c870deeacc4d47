"""``python -m journal_agent`` runs the CLI."""

import sys

from .cli import main

sys.exit(main())
