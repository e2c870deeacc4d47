"""``python -m journal_agent`` runs the CLI (a warm status query without loading it, `quick`)."""

from .quick import run

run()
