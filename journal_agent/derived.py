"""The derived status rule and the contract's status objects, in one place.

Lean on purpose: the warm path (`quick`) derives and prints statuses with these without loading
the library; `queries` and `summary` use the same functions, so both paths answer alike.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: the warm path must not pay for importing it
if TYPE_CHECKING:
    import datetime as dt
    from collections.abc import Callable, Iterable
    from typing import Any, Literal

    Status = Literal["active", "resolved", "stale", "unmentioned"]

#: The activity window of the derived status, in days, where nothing sets it.
DEFAULT_DAYS = 21


def status_of(days_silent: int | None, resolution: bool, days: int) -> Status:
    """The derived status, from the newest dated mention: how many days before the as-of day it
    stands (None: there is none) and whether it is a resolution. The one place the rule is."""
    if days_silent is None:
        return "unmentioned"
    if resolution:
        return "resolved"
    return "active" if days_silent <= days else "stale"


def window_start(as_of: dt.date, days: int) -> dt.date:
    """The first day of the window of ``days`` before ``as_of``, or the calendar's first day
    where the window would begin before it (``--as-of 0001-01-05``: no day precedes 1 January
    of year 1, and subtracting past it raises)."""
    import datetime

    return datetime.date.fromordinal(max(1, as_of.toordinal() - days))


def recency(last: int | None, title: str) -> tuple[int, str]:
    """The sort key of a listing: most recently mentioned first (``last``: the newest dated
    mention's date ordinal), then by title; unmentioned topics last."""
    return (-(last or 0), title.lower())


def lowered(texts: list[str]) -> list[str]:
    """Each of ``texts`` lower-cased, as ``[t.lower() for t in texts]`` gives them, in C: all
    joined by NULs, which lower-casing does not reach across (a final sigma is one before a NUL
    as before a text's end)."""
    found = "\0".join(texts).lower().split("\0")
    return found if len(found) == len(texts) else [text.lower() for text in texts]


def status_object(
    title: str, path: str | None, status: str, last: str | None, silent: int | None, n: int
) -> dict[str, Any]:
    """The contract's status object (``last``: the newest dated mention's ISO date; ``n``: the
    number of dated mentions up to the as-of day)."""
    return {
        "topic": title,
        "path": path,
        "status": status,
        "last_mentioned": last,
        "days_silent": silent,
        "mentions": n,
    }


def status_encoder(thread: bool = False) -> Callable[..., str]:
    """`status_object` (``thread``: `thread_object`, the text a last argument) as
    ``json.dumps(…, ensure_ascii=False)`` writes it, by one format (``last`` is an ISO date):
    the warm path lists every topic of a large vault, and building a dict of each for the
    encoder cost as much again."""
    from .render import json_quoter

    quoted = json_quoter()

    def status(
        title: str, path: str | None, status: str, last: str | None, silent: int | None, n: int
    ) -> str:
        where = "null" if path is None else quoted(path)
        if silent is None:
            return (
                f'{{"topic": {quoted(title)}, "path": {where}, "status": "{status}", '
                f'"last_mentioned": null, "days_silent": null, "mentions": {n}}}'
            )
        return (
            f'{{"topic": {quoted(title)}, "path": {where}, "status": "{status}", '
            f'"last_mentioned": "{last}", "days_silent": {silent}, "mentions": {n}}}'
        )

    def stale_thread(
        title: str, path: str | None, _: str, last: str, silent: int, n: int, text: str | None
    ) -> str:
        return (
            f'{{"topic": {quoted(title)}, "path": {"null" if path is None else quoted(path)}, '
            f'"last_mentioned": "{last}", "days_silent": {silent}, "mentions": {n}, '
            f'"last_text": {"null" if text is None else quoted(text)}}}'
        )

    return stale_thread if thread else status


def unmentioned_encoded(titles: Iterable[str], paths: Iterable[str | None]) -> list[str]:
    """`status_encoder`'s objects of unmentioned topics, all at once: most topics of a large
    vault are, and a call per topic took twice the time."""
    from .render import json_quoter

    quoted = json_quoter()
    tail = ', "status": "unmentioned", "last_mentioned": null, "days_silent": null, "mentions": 0}'
    return [
        f'{{"topic": {title}, "path": {"null" if path is None else quoted(path)}{tail}'
        for title, path in zip(map(quoted, titles), paths, strict=True)
    ]


def thread_object(status: dict[str, Any], last_text: str | None) -> dict[str, Any]:
    """The contract's stale-thread object: a status object without its status, with the text
    of the newest mention."""
    item = dict(status, last_text=last_text)
    del item["status"]
    return item
