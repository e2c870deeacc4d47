"""Daily templates: what a new journal page starts with when journal-agent must create it.

The outliner itself creates today's page from the person's template when they open the day. If
the agent writes first, the page must look as if the outliner had made it, or the person's
template would never be applied (the file already exists). So:

* Obsidian: the daily-notes (or Periodic Notes) template file, with the substitutions of
  obsidian-daily-notes-interface (``createDailyNote``): ``{{date}}``, ``{{title}}`` (the
  formatted file name), ``{{time}}`` (now, ``HH:mm``), ``{{date:FORMAT}}`` / ``{{time:FORMAT}}``
  (the note's day at the current time, any moment tokens, week tokens included) with an optional
  offset such as ``{{date+1d:YYYY-MM-DD}}`` (units as moment's ``add``: y q M w d h m s),
  ``{{yesterday}}`` and ``{{tomorrow}}``. The template is the note a link to its setting opens
  from the vault root (``getFirstLinkpathDest``: the path, else the note of that name or path
  ending, so a bare ``Daily template`` finds ``Templates/Daily template.md``). It must be inside
  the vault (Obsidian picks it from the vault); one outside it, missing or unreadable gives an
  empty note and a warning, as Obsidian creates an empty note when its template cannot be read.
  A variable that cannot be rendered stays as written.
* Logseq: the block named by ``:default-templates {:journals "NAME"}`` (a block with
  ``template:: NAME``): its children, or itself too with ``template-including-parent:: true``,
  with ``<% today %>``, ``<% yesterday %>``, ``<% tomorrow %>``, ``<% current page %>`` and
  ``<% time %>`` filled in.
* Plain Markdown: an empty page.
"""

from __future__ import annotations

import datetime as dt
import os
import re
from collections.abc import Callable

from .dates import DateFormat
from .errors import BadDateFormat, JournalAgentError
from .files import MAX_SETTINGS_BYTES, inside, read_file
from .index import Index
from .outline import decode
from .patterns import regex
from .scanner import Block, Outline
from .vault import Vault

_OBSIDIAN_VAR = regex(r"{{\s*(date|time)\s*(?:([+-]\d+)([yqmwdhsM]))?\s*(:.+?)?}}", re.IGNORECASE)


def daily_template(
    vault: Vault, day: dt.date, index: Callable[[], Index], warnings: list[str] | None = None
) -> str:
    """The initial text of ``day``'s journal page in ``vault`` ("" when there is no template);
    what went wrong with the template is added to ``warnings``."""
    found = warnings if warnings is not None else []
    if vault.flavor.name == "obsidian" and vault.settings.template:
        return _obsidian(vault, day, found)
    if vault.flavor.name == "logseq" and vault.settings.template:
        return _logseq(vault, day, index())
    return ""


def template_name(vault: Vault) -> str:
    """The vault's daily template as a message names it."""
    name = vault.settings.template or ""
    if vault.flavor.name == "logseq":
        return f"the journal template {name!r} (:default-templates in logseq/config.edn)"
    return f"the daily-note template {_template_rel(name)!r}"


def _template_rel(rel: str) -> str:
    """The Obsidian template's file, relative to the vault (its setting may omit ``.md``)."""
    return rel if rel.lower().endswith(".md") else rel + ".md"


def _template_file(vault: Vault, rel: str) -> str:
    """The Obsidian template's file, relative to the vault: at the path its setting names, else
    the note a link to it opens from the vault root, as the daily-notes library finds it
    (``getFirstLinkpathDest(template, "")``, by `wiki_pages`' rules); every note counts, those
    of excluded folders too (links reach them)."""
    exact = _template_rel(rel)
    if os.path.lexists(vault.root / exact):
        return exact
    from .registry import Page
    from .walk import page_files
    from .wiki_pages import WikiPages

    notes = page_files(vault.where, (".md",), (), (), [], stat=False)
    pages = [Page(n[0].rsplit("/", 1)[-1][:-3], n[0]) for n in notes]
    found = WikiPages(pages, vault.flavor).resolve(rel, "")
    return found.path if found is not None and found.path else exact


def _read_template(vault: Vault, warnings: list[str]) -> str | None:
    """The Obsidian template's text, if it is a readable text file inside the vault."""
    rel = vault.settings.template or ""
    if rel.startswith(("/", "\\")) or ".." in rel.replace("\\", "/").split("/"):
        warnings.append(f"daily-note template {rel!r} is outside the vault: the page starts empty")
        return None
    path = vault.root / _template_file(vault, rel)
    if not inside(path, vault.root):
        warnings.append(
            f"daily-note template {rel!r} links outside the vault: the page starts empty"
        )
        return None
    try:
        data = read_file(path, "daily-note template", limit=MAX_SETTINGS_BYTES)
        if data is None:
            warnings.append(f"daily-note template {rel!r} not found: the page starts empty")
            return None
        return decode(data, "the file")[0]  # a binary file's NUL would be written
    except JournalAgentError as exc:
        warnings.append(
            f"daily-note template {rel!r} cannot be used ({exc}): the page starts empty"
        )
        return None


def _obsidian(vault: Vault, day: dt.date, warnings: list[str]) -> str:
    text = _read_template(vault, warnings)
    if text is None:
        return ""  # Obsidian, too, creates an empty note when the template cannot be read
    # the names as the format writes them: ``YYYY-MM-DD[.md]``'s ``2026-11-29.md`` (its file is
    # no ``….md.md``: `vault.Vault.file_format` leaves the extension out)
    names = DateFormat(vault.settings.journal_file_format, vault.settings.date_dialect)
    name = names.format(day)
    now = dt.datetime.now().strftime("%H:%M")
    text = re.sub(r"{{\s*date\s*}}", name, text, flags=re.IGNORECASE)
    text = re.sub(r"{{\s*time\s*}}", now, text, flags=re.IGNORECASE)
    text = re.sub(r"{{\s*title\s*}}", name, text, flags=re.IGNORECASE)
    text = _OBSIDIAN_VAR.sub(lambda m: _obsidian_var(m, names, day), text)
    text = re.sub(
        r"{{\s*yesterday\s*}}",
        names.format(day - dt.timedelta(1)),
        text,
        flags=re.IGNORECASE,
    )
    return re.sub(
        r"{{\s*tomorrow\s*}}",
        names.format(day + dt.timedelta(1)),
        text,
        flags=re.IGNORECASE,
    )


def _obsidian_var(m: re.Match[str], names: DateFormat, day: dt.date) -> str:
    """``{{date...}}`` / ``{{time...}}``: the note's day at the current time, maybe offset
    (``names``: the daily-note format, for a variable without its own)."""
    now = dt.datetime.now()
    when = dt.datetime.combine(day, now.time().replace(microsecond=0))
    try:
        if m.group(2):
            when = _shift(when, int(m.group(2)), m.group(3))
        if m.group(4):
            return DateFormat(m.group(4)[1:].strip(), "moment", names_a_day=False).format(when)
        return names.format(when)
    except (BadDateFormat, OverflowError, ValueError):
        # a token that cannot be rendered here, or an offset past the years Python's dates
        # hold (1 to 9999): leave the variable as written
        return m.group(0)


def _shift(when: dt.datetime, amount: int, unit: str) -> dt.datetime:
    """moment's ``add(amount, unit)`` for the one-letter units a template may use."""
    from dateutil.relativedelta import relativedelta  # lazy: only offset templates need it

    months = {"y": 12, "Y": 12, "q": 3, "Q": 3, "M": 1}.get(unit)
    if months:
        return when + relativedelta(months=amount * months)
    seconds = {"w": 604800, "d": 86400, "h": 3600, "m": 60, "s": 1}.get(unit.lower(), 0)
    return when + dt.timedelta(seconds=amount * seconds)


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
