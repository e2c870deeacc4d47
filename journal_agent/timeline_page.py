"""A topic's timeline as one self-contained HTML page, for people with no outliner to open.

The page holds the topic, its derived status, an activity chart by ISO week (inline SVG) and the
entries grouped by date, each rendered from Markdown with mistune (raw HTML escaped). Each
reference is shown as a link to its page, found with the scanner's own grammar (so text in inline
code is never linked, and ``[label]([[X]])`` shows its label): ``[[X]]``, ``#[[X]]``, ``#tag``,
``[label]([[X]])``, ``{{embed [[X]]}}``; ``[[X|label]]``, ``[[X#Heading]]``, ``[text](X.md)``.
No script, no external stylesheet, no network: it opens from disk anywhere.
"""

from __future__ import annotations

import datetime as dt
import html
import os
from collections import Counter
from itertools import groupby
from pathlib import Path
from urllib.parse import quote

from .errors import UnsafePath, os_error
from .files import replace_file
from .patterns import regex
from .scanner import inline_refs, ref_label

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from .api import TimelineResult
    from .scanner import Syntax
    from .vault import Vault

_PAGE_KINDS = frozenset({"link", "tag", "labeled", "embed", "markdown", "property"})
_MARKDOWN_SPECIAL = regex(r"([\\`*_{}\[\]()#+!<>|~$=^-])")
# Link forms only the wiki syntax has: [[X|label]], ![[X]].
_WIKI_ONLY = regex(r"\[\[[^\[\]|]+\|[^\[\]]*\]\]|!\[\[")


def _linked(text: str, syntax: Syntax) -> str:
    """``text`` with each reference (outermost ones only) written as a Markdown link to its
    page's anchor, showing what a reader of the outliner sees."""
    out, pos = [], 0
    for ref in sorted(inline_refs(text, syntax), key=lambda r: (r.start, -r.end)):
        if ref.start < pos or ref.kind not in _PAGE_KINDS:
            continue
        construct = text[ref.start : ref.end]
        label = ref_label(construct, syntax)
        shown = f"#{label}" if construct.startswith("#") else label
        out += [text[pos : ref.start], f"[{_escape(shown)}](#{quote(ref.target.strip())})"]
        pos = ref.end
    return "".join(out) + text[pos:]


def _escape(label: str) -> str:
    """A link label as literal Markdown text."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", label)


def _markdown(text: str, syntax: Syntax) -> str:
    """Markdown → HTML with references turned into Markdown links first."""
    import mistune  # lazy: only --html needs it

    render = mistune.create_markdown(escape=True, plugins=["strikethrough"])
    out = str(render(_linked(text, syntax))).strip()
    return out[3:-4] if out.startswith("<p>") and out.endswith("</p>") else out


def guess_syntax(result: TimelineResult) -> Syntax:
    """The link syntax of a timeline's vault when the caller does not say: wiki if any entry
    uses a link form only Obsidian and Markdown vaults have, else Logseq's."""
    return "wiki" if any(_WIKI_ONLY.search(e.text) for e in result.entries) else "logseq"


def _chart(dates: list[dt.date]) -> str:
    """Mentions per ISO week, as an inline SVG bar chart from the first week to the last."""
    if not dates:
        return "<p class='muted'>No dated mentions.</p>"
    weeks = Counter(d - dt.timedelta(days=d.weekday()) for d in dates)
    first, last = min(weeks), max(weeks)
    span = [first + dt.timedelta(weeks=i) for i in range((last - first).days // 7 + 1)]
    top = max(weeks.values())
    width = max(8, min(24, 720 // len(span)))
    bars = "".join(
        f"<rect x='{i * width}' y='{60 - 56 * weeks[w] / top:.1f}' width='{width - 1}' "
        f"height='{56 * weeks[w] / top:.1f}'><title>week of {w}: {weeks[w]}</title></rect>"
        for i, w in enumerate(span)
        if weeks[w]
    )
    return (
        f"<svg role='img' aria-label='mentions per week' width='{len(span) * width}' "
        f"height='64' viewBox='0 0 {len(span) * width} 64'>{bars}</svg>"
        f"<p class='muted'>Mentions per week, {first} to {last}.</p>"
    )


_CSS = """body{font:15px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;
color:#222}h1{margin-bottom:.2rem}.status{display:inline-block;padding:.1rem .6rem;
border-radius:1rem;background:#eee;font-weight:600}.active{background:#d8f3dc}.resolved{background:#dbe9ff}
.stale{background:#ffe5cc}svg rect{fill:#4a7bd0}.muted{color:#777;font-size:.85rem}
h2{font-size:1rem;margin:1.4rem 0 .3rem;border-bottom:1px solid #eee}ul{margin:.2rem 0;
padding-left:1.2rem}li.resolution::marker{content:'✓ '}a{color:#2455a4}"""


def render_timeline(result: TimelineResult, syntax: Syntax | None = None) -> str:
    """The HTML page of a timeline; ``syntax`` is the vault's link syntax (see `guess_syntax`)."""
    topic, entries = result.topic, result.entries
    syntax = syntax or guess_syntax(result)
    status = topic.status
    dates = [e.date for e in entries if e.date]
    parts = [
        f"<h1>{html.escape(topic.page.title)}</h1>",
        f"<p><span class='status {status}'>{status}</span> "
        f"<span class='muted'>{html.escape(topic.page.path or 'no file')} · "
        f"{len(entries)} mention(s)</span></p>",
        _chart(dates),
    ]
    for date, group in groupby(entries, key=lambda e: e.date):
        parts.append(f"<h2>{date.isoformat() if date else 'Pages (undated)'}</h2><ul>")
        parts += [  # a journal entry's page is its date, already the heading
            f"<li class='{'resolution' if e.resolution else ''}'>{_markdown(e.text, syntax)}"
            + ("" if e.date else f" <span class='muted'>— {html.escape(e.page)}</span>")
            + "</li>"
            for e in group
        ]
        parts.append("</ul>")
    body = "\n".join(parts)
    return (
        f"<!doctype html><html lang='en'><meta charset='utf-8'>"
        f"<title>{html.escape(topic.page.title)} — timeline</title><style>{_CSS}</style>"
        f"<body>{body}</body></html>\n"
    )


def write_timeline(
    result: TimelineResult, path: str | os.PathLike[str], vault: Vault | None
) -> Path:
    """Write the timeline as one self-contained HTML page at ``path``, atomically; a path
    inside the vault is refused (journal-agent never writes the person's pages), and so is
    anything but a regular file (a device, a FIFO, a folder: ``--html /dev/null`` must not
    replace the device); a symbolic link is written through, to the file it points at."""
    target = _html_target(path)
    if vault is not None and _inside_vault(target, vault):
        raise UnsafePath(f"{target}: is inside the vault; write the timeline page somewhere else")
    page = render_timeline(result, vault.flavor.syntax if vault is not None else None)
    replace_file(target, page.encode("utf-8"), "timeline page")
    return target


def _html_target(path: str | os.PathLike[str]) -> Path:
    """Where ``path`` really is (its links resolved), if it is a regular file or nothing yet."""
    import stat

    from .files import kind_of

    target = Path(os.path.realpath(Path(path).expanduser().absolute()))
    try:
        mode = os.lstat(target).st_mode  # a link left after resolving: a loop
    except FileNotFoundError:
        return target
    except OSError as exc:
        raise os_error(exc, target, "write the timeline page") from exc
    if not stat.S_ISREG(mode):
        what = "a symbolic link loop" if stat.S_ISLNK(mode) else kind_of(mode)
        raise UnsafePath(f"{target}: is {what}, not a file; write the timeline page to a file")
    return target


def _inside_vault(target: Path, vault: Vault) -> bool:
    from .files import inside

    return inside(target, vault.root) or inside(target.parent, vault.root)
