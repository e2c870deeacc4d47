"""The public API is what __all__ says, sorted, and every public name has a docstring."""

from __future__ import annotations

import inspect

import journal_agent
from journal_agent import errors


def test_all_is_sorted_and_complete() -> None:
    public = {name for name in vars(journal_agent) if not name.startswith("_")}
    modules = {name for name in public if inspect.ismodule(getattr(journal_agent, name))}
    modules.add("annotations")  # from __future__
    assert journal_agent.__all__ == sorted(public - modules, key=str.casefold)


def test_every_public_name_is_documented() -> None:
    for name in journal_agent.__all__:
        assert inspect.getdoc(getattr(journal_agent, name)), f"{name} has no docstring"


def test_one_exception_hierarchy() -> None:
    classes = [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, Exception)]
    assert all(issubclass(c, errors.JournalAgentError) for c in classes)
    assert errors.Refused.exit_code == 2 and errors.VaultError.exit_code == 1
