"""``python -m journal_agent`` runs the CLI (a warm status query without loading it, `quick`)."""

import sys

from .quick import main

sys.exit(main())
