"""Logseq properties: which ``key:: value`` lines are properties, which keys Logseq keeps, and
which pages their values name.

Why a module of its own: the Markdown and the org-mode scanners both record properties, and the
rules are Logseq's graph parser's (``block.cljs`` ``extract-properties``,
``get-page-ref-names-from-properties``; ``text.cljs`` ``parse-property-refs``): a key is
lower-cased with ``_`` and spaces written ``-``, a key Logseq cannot read as a keyword is dropped
with its value (`builtins.valid_property_key`), the values of its own keys name no page
(`builtins.NO_REF_PROPERTIES`), a "quoted" value names none, and a comma-separated property
names its references and each plain item around them. Values are read with the scanner's inline
grammar.
"""

from __future__ import annotations

from collections.abc import Callable

from .blocktext import split_property_list
from .builtins import NO_REF_PROPERTIES, valid_property_key
from .inline import _inline_matches, _logseq_refs
from .outline import Block, Outline, Ref
from .patterns import regex

#: A ``key:: value`` line (without its indentation), as mldoc reads one: a key holds no colon
#: (``a::b:: c`` and ``k:x:: v`` are text).
PROPERTY_LINE = regex(r"^[ \t]*(?P<key>[^\s:]+)::(?:[ \t]+(?P<value>.*?))?[ \t]*$")


def record_property(
    key: str,
    value: str,
    lineno: int,
    block: Block,
    outline: Outline,
    comma_properties: frozenset[str],
    lines: dict[str, int] | None = None,
    read: Callable[[str, int, bool], list[Ref]] | None = None,
) -> None:
    """Keep a property on ``block`` (on the page for the preamble) with the page references of
    its value. Logseq lower-cases the key and writes ``_`` and spaces as ``-``; a key it cannot
    read as a keyword is dropped, value and all (`builtins.valid_property_key`). ``lines``: the
    line each key of the drawer was read on; a page property given again replaces the value
    and the references of the first (the graph parser makes a map of the page's properties;
    a block keeps the references of both). ``read``: how the page's format reads a value's
    references (value, line, comma-separated or not), if not as Logseq Markdown."""
    key = property_key(key)
    if not valid_property_key(key):
        return
    # Property lines before the first bullet are the page's own (Logseq's pre-block).
    page = block.kind == "preamble"
    (outline.page_properties if page else block.properties)[key] = value
    refs = outline.page_refs if page else block.refs
    if lines is not None and page:
        was = lines.get(key)
        if was is not None:
            refs[:] = [r for r in refs if r.line != was or r.kind != "property"]
        lines[key] = lineno
    if key in NO_REF_PROPERTIES:
        return
    if read is not None:
        refs.extend(read(value, lineno, key in comma_properties))
    elif key in comma_properties:
        refs.extend(Ref(name, "property", lineno) for name in comma_names(value))
    else:
        property_refs(value, lineno, refs)


def property_key(key: str) -> str:
    """A property key as Logseq keeps it: lower-cased, ``_`` and spaces written as ``-``."""
    return key.lower().replace("_", "-").replace(" ", "-")


def comma_names(value: str) -> list[str]:
    """The pages a comma-separated property value (``alias::``, ``tags::``, …) names, as
    Logseq's graph parser reads it (text.cljs ``parse-property-refs``): its references, and
    each comma-separated item of the plain text around them (``bug #42`` names ``42`` and
    ``bug``). A "quoted" value names none."""
    if value.startswith('"') and value.endswith('"') and len(value) > 1:
        return []
    if _SIMPLE_LIST.fullmatch(value):  # plain items, [[X]] or #x: nothing else to find
        return list(dict.fromkeys(split_property_list(value)))
    refs: list[Ref] = []
    _logseq_refs(value, 0, refs, "property")
    names = [r.target.strip() for r in refs if r.kind != "block"]  # as `property_refs`
    plain, pos = [], 0
    for m in _inline_matches(value):
        plain.append(value[pos : m.start()])
        pos = m.end()
    plain.append(value[pos:])
    names += [i.strip() for text in plain for i in _COMMAS.split(text) if i.strip()]
    return list(dict.fromkeys(names))


_COMMAS = regex("[,\uff0c]")
_ITEM = (
    r"[ \t]*(?:\[\[[^\[\]]+\]\]|#[^\s#,\[\]!\"'?:.;]+|[^\[\]#(){}<>`*_~^=$\\!,\uff0c:/]*?)[ \t]*"
)
_SIMPLE_LIST = regex(f"{_ITEM}(?:,{_ITEM})*")


def property_refs(value: str, lineno: int, out: list[Ref]) -> None:
    """The references of a property value (mldoc sees none in a "quoted" value), each name
    trimmed: the graph parser trims those of a value (text.cljs ``extract-refs-from-mldoc-ast``),
    so ``key:: [[X ]]`` names ``X`` where a block's ``[[X ]]`` names ``X `` (white space kept)."""
    if not (value.startswith('"') and value.endswith('"')):
        start = len(out)
        _logseq_refs(value, lineno, out, "property")
        for i in range(start, len(out)):
            if out[i].target != (name := out[i].target.strip()):
                out[i] = out[i]._replace(target=name)
