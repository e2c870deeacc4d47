"""The public API is what __all__ says, sorted, and every public name has a docstring."""

from __future__ import annotations

import inspect
import subprocess
import sys

import journal_agent
from journal_agent import errors


def test_all_is_sorted_and_every_name_resolves() -> None:
    assert journal_agent.__all__ == sorted(journal_agent.__all__, key=str.casefold)
    for name in journal_agent.__all__:
        assert getattr(journal_agent, name) is not None
    public = {n for n in dir(journal_agent) if not n.startswith("_")}
    modules = {n for n in public if inspect.ismodule(getattr(journal_agent, n))}
    assert public - modules - {"annotations", "importlib", "TYPE_CHECKING", "Any"} == set(
        journal_agent.__all__
    )


def test_every_public_name_is_documented() -> None:
    for name in journal_agent.__all__:
        assert inspect.getdoc(getattr(journal_agent, name)), f"{name} has no docstring"


def test_one_exception_hierarchy() -> None:
    classes = [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, Exception)]
    assert all(issubclass(c, errors.JournalAgentError) for c in classes)
    assert errors.Refused.exit_code == 2 and errors.VaultError.exit_code == 2
    assert errors.StorageError.exit_code == 1 and errors.WriteError.exit_code == 1


def test_importing_the_package_imports_nothing_else() -> None:
    """`journal-agent --version` and hooks start fast: the package loads its modules lazily."""
    code = (
        "import sys, journal_agent; print(sorted(m for m in sys.modules if 'journal_agent.' in m))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
