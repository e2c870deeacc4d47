"""Daily templates: what a new journal page starts with when journal-agent must create it.

The outliner itself creates today's page from the person's template when they open the day. If
the agent writes first, the page must look as if the outliner had made it, or the person's
template would never be applied (the file already exists). So:

* Obsidian: the daily-notes (or Periodic Notes) template file, with the substitutions of
  obsidian-daily-notes-interface: ``{{date}}``, ``{{title}}`` (the formatted file name),
  ``{{time}}`` (now, ``HH:mm``), ``{{date:FORMAT}}`` / ``{{time:FORMAT}}`` with an optional offset
  such as ``{{date+1d:YYYY-MM-DD}}``, ``{{yesterday}}`` and ``{{tomorrow}}``. FORMAT time tokens
  render as midnight (journal-agent formats days, not instants).
* Logseq: the block named by ``:default-templates {:journals "NAME"}`` (a block with
  ``template:: NAME``): its children, or itself too with ``template-including-parent:: true``,
  with ``<% today %>``, ``<% yesterday %>``, ``<% tomorrow %>``, ``<% current page %>`` and
  ``<% time %>`` filled in.
* Plain Markdown: an empty page.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable

from .dates import DateFormat
from .index import Index
from .scanner import Block, Outline
from .vault import Vault

_OBSIDIAN_VAR = re.compile(
    r"{{\s*(date|time)\s*(?:([+-]\d+)([yqmwdhs]))?\s*(:.+?)?}}", re.IGNORECASE
)
_UNITS = {"d": 1, "w": 7}


def daily_template(vault: Vault, day: dt.date, index: Callable[[], Index]) -> str:
    """The initial text of ``day``'s journal page in ``vault`` ("" when there is no template)."""
    if vault.flavor.name == "obsidian" and vault.settings.template:
        return _obsidian(vault, day)
    if vault.flavor.name == "logseq" and vault.settings.template:
        return _logseq(vault, day, index())
    return ""


def _obsidian(vault: Vault, day: dt.date) -> str:
    rel = vault.settings.template or ""
    path = vault.root / (rel if rel.lower().endswith(".md") else rel + ".md")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""  # Obsidian, too, creates an empty note when the template cannot be read
    name = vault.file_format.format(day)
    now = dt.datetime.now().strftime("%H:%M")
    text = re.sub(r"{{\s*date\s*}}", name, text, flags=re.IGNORECASE)
    text = re.sub(r"{{\s*time\s*}}", now, text, flags=re.IGNORECASE)
    text = re.sub(r"{{\s*title\s*}}", name, text, flags=re.IGNORECASE)
    text = _OBSIDIAN_VAR.sub(lambda m: _obsidian_var(m, vault, day), text)
    text = re.sub(
        r"{{\s*yesterday\s*}}",
        vault.file_format.format(day - dt.timedelta(1)),
        text,
        flags=re.IGNORECASE,
    )
    return re.sub(
        r"{{\s*tomorrow\s*}}",
        vault.file_format.format(day + dt.timedelta(1)),
        text,
        flags=re.IGNORECASE,
    )


def _obsidian_var(m: re.Match[str], vault: Vault, day: dt.date) -> str:
    when = day
    if m.group(2):
        when = _shift(day, int(m.group(2)), m.group(3).lower())
    if m.group(4):
        return DateFormat(m.group(4)[1:].strip(), "moment").format(when)
    return vault.file_format.format(when)


def _shift(day: dt.date, amount: int, unit: str) -> dt.date:
    from dateutil.relativedelta import relativedelta  # lazy: only offset templates need it

    if unit in _UNITS:
        return day + dt.timedelta(days=amount * _UNITS[unit])
    months = {"m": 1, "q": 3, "y": 12}.get(unit)
    return day + relativedelta(months=amount * months) if months else day


def _logseq(vault: Vault, day: dt.date, index: Index) -> str:
    found = _template_block(vault, index, vault.settings.template or "")
    if found is None:
        return ""
    outline, position = found
    block = outline.blocks[position]
    with_self = block.properties.get("template-including-parent", "").strip() == "true"
    body = _block_lines(outline.text.split("\n"), block, with_self)
    return _logseq_vars("".join(line + "\n" for line in body), vault, day)


def _template_block(vault: Vault, index: Index, name: str) -> tuple[Outline, int] | None:
    """The page and block that define the Logseq template ``name``."""
    key = name.strip().lower()
    for rel, facts in index.files.items():
        if any(t.lower() == key for t in facts.templates):
            outline = vault.read_page(rel)
            for i, block in enumerate(outline.blocks):
                if block.properties.get("template", "").strip().lower() == key:
                    return outline, i
    return None


def _block_lines(lines: list[str], block: Block, with_self: bool) -> list[str]:
    """The template's lines, dedented to the top level, without the template properties."""
    start = block.line if with_self else block.end
    body = [ln.rstrip("\r") for ln in lines[start : block.subtree_end]]
    body = [ln for ln in body if not re.match(r"\s*template(-including-parent)?::", ln)]
    body = [ln for ln in body if ln.strip()]
    if not body:
        return []
    cut = len(body[0]) - len(body[0].lstrip(" \t"))
    return [ln[cut:] if ln[:cut].strip() == "" else ln.lstrip(" \t") for ln in body]


def _logseq_vars(text: str, vault: Vault, day: dt.date) -> str:
    title = vault.journal_title(day)
    values = {
        "today": f"[[{title}]]",
        "yesterday": f"[[{vault.journal_title(day - dt.timedelta(1))}]]",
        "tomorrow": f"[[{vault.journal_title(day + dt.timedelta(1))}]]",
        "current page": f"[[{title}]]",
        "time": dt.datetime.now().strftime("%H:%M"),
    }
    return re.sub(
        r"<%\s*(today|yesterday|tomorrow|current page|time)\s*%>",
        lambda m: values[m.group(1).lower()],
        text,
        flags=re.IGNORECASE,
    )
