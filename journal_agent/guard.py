"""The guard: lint a bullet before it is written (guest rule 2 and the bullet rules).

A bullet is one line of plain outline text. It may not carry structure that would change the
person's outline (newlines, list / heading / quote markers, ``key:: value`` properties), and every
page it references must already exist by the outliner's own resolution rules, so that writing it
never creates a page. Block refs ``((uuid))`` must point at blocks that exist.

`lint` returns problems; it never raises for a bad bullet. `unlink` rewrites the unknown
references of a bullet as plain text, for callers that opt in to that instead of a refusal.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any, Literal

from .registry import PageRegistry
from .scanner import Ref, Syntax, inline_refs

MAX_LENGTH = 1000  # characters; a journal bullet longer than this is a document, not a note

ProblemKind = Literal[
    "empty",
    "multiline",
    "control",
    "too-long",
    "structure",
    "property",
    "unknown-page",
    "alias-link",
    "unknown-block",
    "superseded",
]


@dataclass
class Problem:
    """One reason a bullet cannot be written as it is."""

    bullet: str
    kind: ProblemKind
    message: str
    name: str | None = None  # the offending page name or block id
    suggestions: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The contract's problem object (plus the message that explains it)."""
        return {
            "bullet": self.bullet,
            "kind": self.kind,
            "name": self.name,
            "message": self.message,
            "suggestions": self.suggestions,
        }


_STRUCTURE = re.compile(r"^(?:[-*+](?:\s|$)|\d{1,9}[.)](?:\s|$)|#{1,6}(?:\s|$)|>|```|~~~|---\s*$)")
_PROPERTY = re.compile(r"(?:^|\s)[^\s:\[\]()]+::(?:\s|$)")
_LINE_BREAKS = {"\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"}
_PAGE_KINDS = frozenset({"link", "tag", "labeled", "embed", "markdown", "property"})


def lint_text(bullet: str, max_length: int = MAX_LENGTH) -> list[Problem]:
    """The problems of a bullet's shape alone (no vault needed)."""
    if not bullet.strip():
        return [Problem(bullet, "empty", "the bullet is empty")]
    if any(c in _LINE_BREAKS for c in bullet):
        return [Problem(bullet, "multiline", "a bullet is one line: it contains a line break")]
    bad = sorted({f"U+{ord(c):04X}" for c in bullet if unicodedata.category(c) == "Cc"})
    if bad:
        return [Problem(bullet, "control", f"control characters {', '.join(bad)} are not text")]
    problems = []
    if len(bullet) > max_length:
        problems.append(
            Problem(bullet, "too-long", f"{len(bullet)} characters; the limit is {max_length}")
        )
    if _STRUCTURE.match(bullet.strip()):
        problems.append(
            Problem(
                bullet,
                "structure",
                "starts with a list, heading, quote or code marker; write plain text",
            )
        )
    if _PROPERTY.search(bullet):
        problems.append(
            Problem(
                bullet, "property", "'key:: value' would become a property (and a property page)"
            )
        )
    return problems


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
    for ref in inline_refs(bullet, syntax):
        problem = _check_ref(bullet, ref, registry, block_ids)
        if problem is not None:
            problems.append(problem)
    return problems


def _check_ref(
    bullet: str, ref: Ref, registry: PageRegistry, block_ids: frozenset[str]
) -> Problem | None:
    if ref.kind == "block":
        if ref.target.lower() in block_ids:
            return None
        return Problem(bullet, "unknown-block", f"no block has the id {ref.target}", ref.target)
    if ref.kind not in _PAGE_KINDS or (registry.wiki and ref.kind == "tag"):
        return None  # an Obsidian #tag is a tag, not a page
    page = registry.resolve(ref.target)
    if page is None:
        return _unknown(bullet, ref.target, registry)
    superseded = page.superseded_by
    if superseded:
        return Problem(
            bullet,
            "superseded",
            f"page {page.title!r} is superseded by {superseded!r}",
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
            f"{name!r} is an alias of {real.title!r}: write [[{real.title}|{name}]]",
            name,
            [f"{real.title}|{name}"],
        )
    suggestions = registry.suggest(name)
    hint = f" (did you mean {', '.join(repr(s) for s in suggestions)}?)" if suggestions else ""
    return Problem(
        bullet,
        "unknown-page",
        f"no page named {name!r}; writing it would create one{hint}",
        name,
        suggestions,
    )


_WIKI_LINK = re.compile(r"!?\[\[([^\[\]|#^]*)([#^][^\[\]|]*)?(?:\|([^\[\]]*))?\]\]")
_LOGSEQ_LINK = re.compile(
    r"#\[\[((?:[^\[\]]|\[(?!\[)|\](?!\]))+?)\]\]"  # #[[multi word]]
    r"|\[([^\[\]]*)\]\(\[\[([^\[\]]+?)\]\]\)"  # [label]([[X]])
    r"|\[\[((?:[^\[\]]|\[(?!\[)|\](?!\]))+?)\]\]"  # [[X]]
    r"|(?<![\w\]#&])#([^\s\[#,!?'\":;.]+)"  # #tag
)


def unlink(bullet: str, unknown: set[str], syntax: Syntax) -> str:
    """``bullet`` with its references to the ``unknown`` names written as plain text."""
    keys = {name.lower() for name in unknown}
    if syntax == "wiki":

        def plain_wiki(m: re.Match[str]) -> str:
            target = m.group(1).strip()
            return (m.group(3) or target) if target.lower() in keys else m.group(0)

        return _WIKI_LINK.sub(plain_wiki, bullet)

    def plain(m: re.Match[str]) -> str:
        name = next(g for g in (m.group(1), m.group(3), m.group(4), m.group(5)) if g is not None)
        if name.lower() not in keys:
            return m.group(0)
        return m.group(2) if m.group(3) is not None and m.group(2) else name

    return _LOGSEQ_LINK.sub(plain, bullet)


MAX_HEADER = 100


def check_header(header: str, syntax: Syntax) -> None:
    """Refuse an owned-block header that would mint a page or change the outline: the header
    is a bullet we write, and it holds no link, tag, property or structure (guest rule 1)."""
    from .errors import BadAgentName, short

    shown = short(header)
    if not header.strip():
        raise BadAgentName("the agent name is empty")
    bad = sorted({f"U+{ord(c):04X}" for c in header if unicodedata.category(c) in ("Cc", "Cf")})
    if bad:
        raise BadAgentName(
            f"agent name {shown!r} holds line breaks, control or direction characters "
            f"({', '.join(bad)})"
        )
    if len(header) > MAX_HEADER:
        raise BadAgentName(f"agent name {shown!r} is longer than {MAX_HEADER} characters")
    if _STRUCTURE.match(header.strip()) or "::" in header:
        raise BadAgentName(f"agent name {shown!r} would start a list, heading, quote or property")
    if inline_refs(header, syntax) or any(c in header for c in "#[]()"):
        raise BadAgentName(
            f"agent name {shown!r} holds a link, tag or reference; the owned block's header "
            "links nothing (use letters, digits, spaces, '-', '_' or '.')"
        )
