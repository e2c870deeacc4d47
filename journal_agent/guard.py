"""The guard: lint a bullet before it is written (guest rule 2 and the bullet rules).

A bullet is one line of plain outline text. It may not carry structure that would change the
person's outline (newlines, list / heading / quote markers, ``key:: value`` properties, a block
of its own such as a table or a rule), and every page it references must already exist by the
outliner's own resolution rules, so that writing it never creates a page. Block refs ``((uuid))``
must point at blocks that exist.

What a bullet references is what the scanner finds in it (`journal_agent.scanner.inline_refs`,
which follows Logseq's parser and graph parser); Logseq also makes pages of a block's task marker
and priority, and the guard refuses the few link forms whose page the scanner cannot be sure of.
tests/test_guard_mldoc.py holds all of it to Logseq's own parser.

`lint` returns problems; it never raises for a bad bullet. `unlink` rewrites the unknown
references of a bullet as plain text, for callers that opt in to that instead of a refusal, and
refuses (`BulletsRefused`) when the plain text would itself be unsafe. `check_header` refuses an
owned block's header that would mint anything.
"""

from __future__ import annotations

import re
import unicodedata

from .errors import BadAgentName, BulletsRefused, short
from .patterns import regex
from .records import Record
from .registry import PageRegistry
from .scanner import Ref, code_spans, inline_refs, ref_label
from .wiki import wiki_opens_comment

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from typing import Any, Literal

    from .scanner import Syntax

    ProblemKind = Literal[
        "empty",
        "multiline",
        "control",
        "too-long",
        "structure",
        "property",
        "link-form",
        "unknown-page",
        "alias-link",
        "unknown-block",
        "superseded",
    ]

MAX_LENGTH = 1000  # characters; a journal bullet longer than this is a document, not a note
MAX_HEADER = 100  # characters of an owned block's header
SHOWN = 60  # characters of a bullet or name quoted in a message


class Problem(Record):
    """One reason a bullet cannot be written as it is."""

    __slots__ = ("bullet", "kind", "message", "name", "suggestions")

    def __init__(
        self,
        bullet: str,  # the bullet, cut short (see `shorten`) when it is over the length limit
        kind: ProblemKind,
        message: str,
        name: str | None = None,  # the offending page name or block id
        suggestions: list[str] | None = None,
    ) -> None:
        self.bullet = bullet
        self.kind = kind
        self.message = message
        self.name = name
        self.suggestions = [] if suggestions is None else suggestions

    def to_json(self) -> dict[str, Any]:
        """The contract's problem object (plus the message that explains it)."""
        return {
            "bullet": self.bullet,
            "kind": self.kind,
            "name": self.name,
            "message": self.message,
            "suggestions": self.suggestions,
        }

    def line(self) -> str:
        """The problem as one short line: the bullet quoted (cut short), then the message."""
        return f"{quote(self.bullet)}: {self.message}"


def shorten(text: str, limit: int = SHOWN) -> str:
    """``text``, or its first ``limit`` characters and how long it is: a refusal of a huge input
    must still be one short line. (Text it has cut already stays as it is.)"""
    if len(text) <= limit + 20 or _SHORTENED.fullmatch(text):
        return text
    return short(text, limit)


_SHORTENED = regex(rf"(?s:.{{0,{SHOWN}}})… \(\d+ characters\)")


def quote(text: str) -> str:
    """``text`` cut short and quoted, for a message (escapes may not make it long either)."""
    text = shorten(text)
    head, tail = text, ""
    if (m := re.search(r"… \(\d+ characters\)\Z", text)) is not None:
        head, tail = text[: m.start()], text[m.start() :]
    while len(repr(head)) > SHOWN + 22:
        head, tail = head[: len(head) * 3 // 4], tail or f"… ({len(text)} characters)"
    return repr(head + tail)


def refusal(problems: list[Problem]) -> str:
    """The one line that refuses a batch of bullets: the first problem and how many more."""
    more = f"; and {len(problems) - 1} more problem(s)" if len(problems) > 1 else ""
    return f"refused, nothing written: {problems[0].line()}{more}"


# ---------------------------------------------------------------------------------------------
# the shape of a bullet, in any syntax

_STRUCTURE = regex(r"^(?:[-*+](?:\s|$)|\d{1,9}[.)](?:\s|$)|#{1,6}(?:\s|$)|>|```|~~~|---\s*$)")
_PROPERTY = regex(r"(?:^|\s)[^\s:\[\]()]+::(?:\s|$)")
_LINE_BREAKS = {"\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"}
_PAGE_KINDS = frozenset({"link", "tag", "labeled", "embed", "markdown", "property"})


def lint_text(bullet: str, max_length: int = MAX_LENGTH) -> list[Problem]:
    """The problems of a bullet's shape alone (no vault needed)."""
    shown = bullet if len(bullet) <= max_length else shorten(bullet)
    if not bullet.strip():
        return [Problem(shown, "empty", "the bullet is empty")]
    if any(c in _LINE_BREAKS for c in bullet):
        return [Problem(shown, "multiline", "a bullet is one line: it contains a line break")]
    bad = sorted({f"U+{ord(c):04X}" for c in bullet if unicodedata.category(c) == "Cc"})
    if bad:
        return [Problem(shown, "control", f"control characters {', '.join(bad)} are not text")]
    problems = []
    if len(bullet) > max_length:
        problems.append(
            Problem(shown, "too-long", f"{len(bullet)} characters; the limit is {max_length}")
        )
    if _STRUCTURE.match(bullet.strip()):
        problems.append(
            Problem(
                shown,
                "structure",
                "starts with a list, heading, quote or code marker; write plain text",
            )
        )
    if _PROPERTY.search(bullet):
        problems.append(
            Problem(
                shown, "property", "'key:: value' would become a property (and a property page)"
            )
        )
    return problems


# ---------------------------------------------------------------------------------------------
# Logseq: what mldoc makes of the start of a bullet

_MARKERS = "TODO|DOING|WAITING|WAIT|DONE|CANCELED|CANCELLED|STARTED|IN-PROGRESS|NOW|LATER"
# mldoc: "- ", then a task marker (followed by a space or the end), then a priority [#X] (one
# ASCII character), each after white space; the title is the rest.
_HEAD = regex(
    rf"(?:(?P<marker>{_MARKERS})(?= |$))?"
    r"(?:(?(marker)[ \t]+)\[#(?P<priority>[\x00-\x7f])\](?P<after>[^ \t]?))?"
)
#: Pages every Logseq graph has (logseq/db/default.cljs): the markers and priorities.
BUILT_IN_PAGES = frozenset(
    "now later doing done canceled cancelled in-progress todo wait waiting a b c".split()
    + ["favorites", "contents", "card"]
)
# What mldoc reads at the start of a title as a block of its own (the bullet's title is then
# empty and the text becomes that block), beyond `_STRUCTURE`.
_BLOCK_STARTS: list[tuple[re.Pattern[str], ProblemKind, str]] = [
    (regex(r"[^ \t]+::(?:[ \t]|$)"), "property", "'key:: value' at its start is a property"),
    (regex(r"(?:-{3,}|\*{3,}|_{3,})[ \t]*$"), "structure", "---, *** or ___ is a rule"),
    (regex(r"#+(?:[ \t]|$)"), "structure", "'# ' makes it a heading"),
    (regex(r"\|"), "structure", "'|' at its start makes a table"),
    (regex(r"\$\$"), "structure", "'$$' at its start makes a math block"),
    (regex(r"<[A-Za-z!?/]"), "structure", "HTML at its start makes an HTML block"),
    (regex(r">"), "structure", "'>' makes it a quote"),
    (regex(r"\[\^[^\]]*\]:"), "structure", "'[^1]:' makes it a footnote"),
    (regex(r"(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)|```|~~~"), "structure", "a list or code marker"),
]
_LOGSEQ_BLOCK_STARTS: list[tuple[re.Pattern[str], ProblemKind, str]] = [
    (regex(r"#\+"), "structure", "'#+' starts an org directive or block"),
    (regex(r"\\begin\{"), "structure", "'\\begin{' starts a LaTeX environment"),
]
_EMBED = regex(r"\{\{(\{?)embed \[\[([^\[\]]+)\]\]\}\}\1")
_EMBED_START = regex(r"\{\{\{?embed(?![^ }(])")
_FILE_LINK_WHY = "a link to a .md file links the page named by its label; write [[Page]]"
# Text the guard refuses rather than guesses at, outside code spans.
_UNSURE = [
    (  # mldoc starts these only where its run of plain text stops: after ")" or "]" it depends
        regex(r"[)\]}>](?:<[A-Za-z!?/]|\{\{|\(\(|!\[|[A-Za-z0-9]+://)"),
        "right after a bracket Logseq may read it otherwise; put a space before it",
    ),
    (  # an escaped bracket is part of a page name in a page ref, and more such surprises
        regex(r"\\[^A-Za-z0-9]"),
        "Logseq reads backslash escapes its own way; put that text in a code span",
    ),
    (  # where such a URL ends depends on how mldoc pairs the brackets
        regex(r"[A-Za-z0-9]+://[^ \t]*?(?:\[\[|\]\]|\(\()"),
        "a URL that runs into [[, ]] or ((; put a space after the URL",
    ),
]


def _heading(bullet: str) -> tuple[list[str], str, list[Problem]]:
    """The pages that the task marker and priority make, the title after them, and what is
    wrong with that start."""
    m = _HEAD.match(bullet)
    assert m is not None  # every part is optional
    pages = [p for p in (m.group("marker"), m.group("priority")) if p and p.strip()]
    title = bullet[m.end() :]
    if m.group("after"):
        return pages, title, [_structure(bullet, "a priority [#X] must be followed by a space")]
    if title and not title.strip():  # mldoc makes the white space a paragraph of its own
        return pages, title, [Problem(bullet, "empty", "a task marker or priority and no text")]
    title = title.lstrip(" \t")
    return pages, title, _block_start(bullet, title, _BLOCK_STARTS + _LOGSEQ_BLOCK_STARTS)


def _block_start(
    bullet: str, title: str, rules: list[tuple[re.Pattern[str], ProblemKind, str]]
) -> list[Problem]:
    """A title that the outliner reads as the start of a block of its own."""
    for pattern, kind, why in rules:
        if pattern.match(title):
            return [_structure(bullet, why, kind)]
    return []


# Checked in the whole bullet, code spans too (mldoc may pair the backticks otherwise).
_UNSURE_ANYWHERE = [
    (  # in emphasis and link labels mldoc pairs backticks in a row with others its own way
        regex(r"``+"),
        "backticks in a row; write a code span as `code`",
    ),
    (  # the page of [label](<[[X]]>) depends on how mldoc pairs the label's brackets
        regex(r"\]\([ \t]*<[ \t]*\[\["),
        "write a link to a page as [label]([[Page]])",
    ),
    (  # Logseq links the page named by the label, however the label parses
        regex(r"\]\((?![^()\n]*://)[^()\n]*\.(?:md|markdown)\b[^()\n]*\)", re.I),
        _FILE_LINK_WHY,
    ),
]


def _unsure(bullet: str, refs: list[Ref]) -> Problem | None:
    """Text whose pages the guard cannot be sure of (`_UNSURE`, a code span that may belong to a
    link's label, and an embed the scanner does not read as ``{{embed [[Page]]}}``)."""
    spans = code_spans(bullet, "logseq")
    for start, end in spans:  # a label may end inside it: mldoc pairs that backtick otherwise
        if "](" in bullet[start:end]:
            return _form(bullet, bullet[start:end], "a code span holding '](' next to a link")
    plain = _blank(bullet, spans)
    for text, rules in ((bullet, _UNSURE_ANYWHERE), (plain, _UNSURE)):
        for pattern, why in rules:
            if m := pattern.search(text):
                return _form(bullet, m.group(), why)
    embeds = {r.start for r in refs if _EMBED.fullmatch(bullet, r.start, r.end)}
    for m in _EMBED_START.finditer(plain):
        if m.start() not in embeds:
            return _form(bullet, m.group(), "write an embed as {{embed [[Page]]}}")
    return None


def _structure(bullet: str, why: str, kind: ProblemKind = "structure") -> Problem:
    return Problem(bullet, kind, f"{why}, not a plain bullet; write plain text")


def _logseq_form(bullet: str, ref: Ref) -> Problem | None:
    """A reference whose page Logseq names otherwise than the plain reading."""
    construct = bullet[ref.start : ref.end]
    if ref.kind == "markdown":
        return _form(bullet, construct, _FILE_LINK_WHY)
    if construct.startswith("{{") and (ref.kind == "block" or not _EMBED.fullmatch(construct)):
        return _form(bullet, construct, "write an embed as {{embed [[Page]]}}")
    return None


def _form(bullet: str, construct: str, why: str) -> Problem:
    return Problem(bullet, "link-form", f"{quote(construct)}: {why}", construct)


# ---------------------------------------------------------------------------------------------
# linting


def lint(
    bullet: str,
    registry: PageRegistry,
    syntax: Syntax,
    *,
    block_ids: frozenset[str],
    max_length: int = MAX_LENGTH,
) -> list[Problem]:
    """Every problem of one bullet: its shape, then each reference it makes."""
    problems = lint_text(bullet, max_length)
    if problems:
        return problems
    problems, pages, refs = _form_problems(bullet, syntax)
    if problems:
        return problems
    for name in pages:
        if name.lower() not in BUILT_IN_PAGES and registry.resolve(name) is None:
            problems.append(_unknown(bullet, name, registry))
    for ref in refs:
        problem = _check_ref(bullet, ref, registry, block_ids)
        if problem is not None:
            problems.append(problem)
    return problems


def _form_problems(bullet: str, syntax: Syntax) -> tuple[list[Problem], list[str], list[Ref]]:
    """What the vault cannot change about a bullet (beyond `lint_text`): its structure in the
    outliner and the forms of its links; also the pages its marker makes and its references."""
    refs = inline_refs(bullet, syntax)
    if syntax != "logseq":
        return _wiki_form(bullet, refs), [], refs
    pages, _title, problems = _heading(bullet)
    problems += [p for ref in refs if (p := _logseq_form(bullet, ref)) is not None]
    if not problems and (unsure := _unsure(bullet, refs)) is not None:
        problems.append(unsure)
    return problems, pages, refs


# ---------------------------------------------------------------------------------------------
# Obsidian and plain Markdown (no parser to test against: the guard reads them strictly)

# A Markdown link to a note without ".md" ([text](Note)), where the scanner reads none (an empty
# destination, a label it does not take): refused rather than written unchecked.
_NOTE_LINK = regex(r"\]\((?![^()\n]*:)(?!#)(?:<[^<>\n]*>|[^()\s]*)\)")
_NOTE_LINK_WHY = "a Markdown link to a note; write [[Note]] or [text](Note.md)"


def _wiki_form(bullet: str, refs: list[Ref]) -> list[Problem]:
    """The structure a bullet's start makes, Markdown links to notes the scanner does not read,
    and brackets left over that make no link the scanner knows."""
    problems = _block_start(bullet, bullet.lstrip(" \t"), _BLOCK_STARTS)
    if problems:
        return problems
    if "%%" in bullet and wiki_opens_comment(bullet):
        return [_structure(bullet, "an unclosed %% would hide the page up to the next %%")]
    plain = _blank(bullet, code_spans(bullet, "wiki") + [(r.start, r.end) for r in refs])
    for m in _NOTE_LINK.finditer(plain):
        if not _has_extension(m.group()[2:-1]):
            return [_form(bullet, m.group(), _NOTE_LINK_WHY)]
    for sign in ("[[", "]]"):
        if sign in plain:
            return [_form(bullet, sign, "brackets that make no link; write [[Note]]")]
    return []


def _has_extension(target: str) -> bool:
    """Whether a link target names a file with an extension (an attachment, or Note.md)."""
    name = target.strip("<>").split("#", 1)[0].rsplit("/", 1)[-1]
    return "." in name.strip(".")


def _blank(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with the given spans blanked out."""
    for start, end in spans:
        text = text[:start] + " " * (end - start) + text[end:]
    return text


def _check_ref(
    bullet: str, ref: Ref, registry: PageRegistry, block_ids: frozenset[str]
) -> Problem | None:
    if ref.kind == "block":
        if ref.target.lower() in block_ids:
            return None
        return Problem(bullet, "unknown-block", f"no block has the id {ref.target}", ref.target)
    if ref.kind not in _PAGE_KINDS or (registry.wiki and ref.kind == "tag"):
        return None  # an Obsidian #tag is a tag, not a page
    if not registry.wiki and ref.target != ref.target.strip():
        return Problem(
            bullet,
            "unknown-page",
            f"{quote(ref.target)} has spaces inside its brackets, which makes it a page of its "
            "own in Logseq",
            ref.target,
            [ref.target.strip()],
        )
    page = registry.resolve(ref.target)
    if page is None:
        return _unknown(bullet, ref.target, registry)
    superseded = page.superseded_by
    if superseded:
        return Problem(
            bullet,
            "superseded",
            f"page {quote(page.title)} is superseded by {quote(superseded)}",
            ref.target,
            [superseded],
        )
    return None


def _unknown(bullet: str, name: str, registry: PageRegistry) -> Problem:
    real = registry.alias_owner(name) if registry.wiki else None
    if real is not None:
        return Problem(
            bullet,
            "alias-link",
            f"{quote(name)} is an alias of {quote(real.title)}: write "
            f"[[{shorten(real.title)}|{shorten(name)}]]",
            name,
            [f"{real.title}|{name}"],
        )
    suggestions = registry.suggest(name)
    hint = f" (did you mean {', '.join(quote(s) for s in suggestions)}?)" if suggestions else ""
    return Problem(
        bullet,
        "unknown-page",
        f"no page named {quote(name)}; writing it would create one{hint}",
        name,
        suggestions,
    )


# ---------------------------------------------------------------------------------------------
# unknown names as plain text


def unlink(bullet: str, unknown: set[str], syntax: Syntax) -> str:
    """``bullet`` with its references to the ``unknown`` names written as plain text.

    Raises `BulletsRefused` when that text would itself be unsafe: a new structure (``[[X]]::``
    becomes a property), or a reference that the bullet did not make before.
    """
    keys = {_key(name) for name in unknown}
    result = _unlinked(bullet, keys, syntax)
    _recheck(bullet, result, keys, syntax)
    return result


def _key(name: str) -> str:
    """Names compared as the outliner compares them (case-insensitive; spaces count)."""
    return unicodedata.normalize("NFC", name).lower()


def _unlinked(text: str, keys: set[str], syntax: Syntax) -> str:
    """``text`` with every outermost reference to a name in ``keys`` replaced by its label."""
    out, pos = [], 0
    for ref in sorted(inline_refs(text, syntax), key=lambda r: (r.start, -r.end)):
        if ref.start < pos or ref.kind == "block" or _key(ref.target) not in keys:
            continue
        label = ref_label(text[ref.start : ref.end], syntax)
        out += [text[pos : ref.start], _unlinked(label, keys, syntax)]
        pos = ref.end
    return "".join(out) + text[pos:]


def _recheck(bullet: str, result: str, keys: set[str], syntax: Syntax) -> None:
    """Refuse an unlinked bullet that has a problem of its own, or a reference (or marker page)
    that is new or unknown: it is written without being linted again."""
    problems = lint_text(result) or _form_problems(result, syntax)[0]
    if not problems:
        _, before_pages, before = _form_problems(bullet, syntax)
        known = {_ref_key(r) for r in before} | {_key(p) for p in before_pages}
        _, pages, refs = _form_problems(result, syntax)
        new = [r.target for r in refs if _ref_key(r) not in known or _key(r.target) in keys]
        new += [p for p in pages if _key(p) in keys or _key(p) not in known]
        if new:
            why = f"it would still reference {quote(new[0])}"
            problems = [Problem(bullet, "unknown-page", why, new[0])]
    if problems:
        message = f"cannot write the unknown names of {quote(bullet)} as plain text: "
        raise BulletsRefused(message + problems[0].message, problems)


def _ref_key(ref: Ref) -> str:
    return ("((" if ref.kind == "block" else "") + _key(ref.target)


# ---------------------------------------------------------------------------------------------
# the owned block's header

# Bidi controls and every other control or format character (Cc, Cf), line separators too.
_INVISIBLE = frozenset({"Cc", "Cf", "Zl", "Zp"})
_HEADER_MARKS = regex(r"[-*+>#|]|\d{1,9}[.)](?:\s|$)|```|~~~|\$\$|<[A-Za-z!?/]")


def check_header(header: str, syntax: Syntax) -> None:
    """Refuse (`BadAgentName`) an owned block's header that is not one short line of plain text:
    the header is a bullet we write, and it must hold no link, tag, property or block ref, and
    no marker that changes the outline."""
    why = _header_problem(header, syntax)
    if why is not None:
        raise BadAgentName(f"the owned block's header {quote(header)} {why}")


def _header_problem(header: str, syntax: Syntax) -> str | None:
    if not header.strip():
        return "is empty"
    if len(header) > MAX_HEADER:
        return f"is {len(header)} characters long; the limit is {MAX_HEADER}"
    bad = sorted({f"U+{ord(c):04X}" for c in header if unicodedata.category(c) in _INVISIBLE})
    if bad:
        return f"holds control or format characters ({', '.join(bad)})"
    if header != header.strip():
        return "starts or ends with white space"
    if _HEADER_MARKS.match(header):
        return "starts with a list, heading, quote, table or code marker"
    if "::" in header:
        return "holds '::', which makes a property"
    for sign in ("[[", "]]", "#", "((", "{{", "]("):
        if sign in header:
            return f"holds {sign!r}, which makes a link, tag, macro or block ref"
    pages, _, problems = _heading(header) if syntax == "logseq" else ([], "", [])
    if inline_refs(header, syntax) or pages:
        return "would reference a page (a link, tag or task marker)"
    if problems or _block_start(header, header, _BLOCK_STARTS):
        return "would not be a plain bullet (it starts a block of its own)"
    return None
