"""The inline grammar of Logseq's Markdown: which references a piece of text makes.

mldoc (1.5.x, what Logseq 0.10 uses) reads a block's first line, each paragraph of its body and
each property value with one inline grammar. At each position it takes the first of the
constructs below (`_LOGSEQ_PIECES`, in order) that matches there; a construct that yields no
reference (code, a URL, ...) still hides the text it spans. References carry their span (the
columns of their construct in its line), so that the guard's ``unlink`` and the HTML timeline
work on the same grammar. The block structure around it is `scanner`'s.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .outline import Ref
from .patterns import regex

TYPE_CHECKING = False  # not typing's: see `records`
if TYPE_CHECKING:
    from .outline import RefKind

# Logseq. mldoc (1.5.x, what Logseq 0.10 uses) reads a block's first line, each paragraph of its
# body and each property value with one inline grammar. At each position it takes the first of
# the constructs below (_LOGSEQ_PIECES, in order) that matches there; a construct that yields no
# reference (code, a URL, ...) still hides the text it spans.
_UUID = r"[0-9A-Fa-f]{8}-(?:[0-9A-Fa-f]{4}-){3}[0-9A-Fa-f]{12}"  # Logseq keeps only these ids
_UUID_RE = regex(_UUID)

# Constructs that begin with a character that does not end mldoc's run of plain text (a letter,
# '(', '{', '<') only start where such a run stops: after white space or one of mldoc's
# delimiters, or right after another construct (taken to be one when ] ) or } precede).
_TOKEN = r"(?<![^ \t\n\r\f\\_^\[\]*~`=$#)}])"
_HTML_TAGS = (
    "a|abbr|address|area|article|aside|audio|b|base|bdi|bdo|blockquote|body|br|button|canvas|"
    "caption|cite|code|col|colgroup|data|datalist|dd|del|dfn|div|dl|dt|em|embed|fieldset|"
    "figcaption|figure|footer|form|h[1-6]|head|header|hr|html|i|iframe|img|input|ins|kbd|keygen|"
    "label|legend|li|link|main|map|mark|meta|meter|nav|noscript|object|ol|optgroup|option|output|"
    "p|param|pre|progress|q|rb|rp|rt|rtc|ruby|s|samp|script|section|select|small|source|span|"
    "strong|style|sub|sup|table|tbody|td|template|textarea|tfoot|th|thead|time|title|tr|track|u|"
    "ul|var|video|details|summary|wbr"
)
_HTML = (
    r"(?P<html><!--[\s\S]*?-->|<(?P<htag>(?i:" + _HTML_TAGS + r"))(?=[ \t>])"
    r"(?:[\s\S]*?</(?i:(?P=htag))>|[\s\S]*?/>))"
)
_CODE_SPAN = r"(?P<code>`[^`\n]+`|``[\s\S]*?``)"
_ESCAPE = r"(?P<esc>\\.)"
_LATEX = r"(?P<latex>\$\$[^$\n]*\$\$|\$[^ $\n](?:[^$\n]*[^$\n (\[{])?\$)"
# \( math \) and \[ math \]: to the first closing delimiter, across the paragraph's lines (an
# unclosed one is an escaped bracket)
_LATEX_BRACKETS = r"(?P<latexb>\\\([\s\S]*?\\\)|\\\[[\s\S]*?\\\])"
# <scheme:link>, one word (mldoc's quick link); "//" after the colon is taken if it is there,
# and then something must follow it (no atomic group: Python 3.10 has none)
_AUTOLINK = r"(?P<autolink><[A-Za-z0-9]+:(?://(?=[^ \t\n\r\f>])|(?!//))[^ \t\n\r\f>]+>)"
_EXPORT_SNIPPET = r"(?P<export>@@[^ \t\n\r\f:]+: [^@\n\r]+@@)"  # @@html: <b>raw</b>@@
# Hiccup, [:div ...]: a known HTML tag (and .class or #id), then to the "]" that closes it (see
# `_hiccup_end`, which the pattern leaves to find).
_HICCUP = r"(?P<hiccup>\[:(?i:" + _HTML_TAGS + r")(?:[.#][^ \t\]]*)?(?=[ \t\]]))"
_URL = (  # a host, then to white space, brackets balanced
    r"(?P<url>[A-Za-z0-9]+://[^ \t\n\r\f\[\]<>{}()/?#]+(?:[/?#](?:[^ \t\n\r\f()\[\]]"
    r"|\([^ \t\n\r\f()]*\)?|\[(?:[^ \t\n\r\f\[\]]|\[[^ \t\n\r\f\[\]]*\]?)*\]?)*)?)"
)
_MACRO = (  # {{name args}}, or {{{name args}}} (three braces each side)
    r"(?P<macro>\{\{(?P<brace>\{)?(?P<mname>[^ {}(]+)(?P<margs>[^}\n]*)\}\}(?(brace)\}))"
)
# A link's label: text, code spans and escapes, [[page refs]] and [balanced] brackets. An image's
# "!" starts it only where a construct may start (see _TOKEN), and never inside emphasis.
_LABEL_TEXT = r"(?:\\.|`[^`\n]+`|[^\[\]\\`]|`(?![^`\n]+`)|\[\[[^\[\]]*\]\]|\[[^\[\]]*\])*"
_IMAGE = rf"(?:{_TOKEN}!)?"
_NESTED = r"(?P<nested>\[\[(?P<outer>[^\[\]]*\[\[(?P<inner>[^\[\]]+)\]\][^\[\]]*)\]\])"
# A page ref is "[[", the shortest run of characters on the line, then "]]": it may hold single
# brackets and even "[[" ("[[a]([[b]])" is the page "a]([[b").
_TAGREF = r"(?P<tagref>#\[\[(?!\]\])(?P<tname>[^\n]+?)\]\])"
_REF = r"(?P<ref>\[\[(?!\]\])(?P<name>[^\n]+?)\]\])"
_LABELED = (  # [label]([[X]]), [label]([[X]] "title"), [label](((uuid)))
    rf"(?P<labeled>{{image}}\[{_LABEL_TEXT}\]\((?:\[\[(?P<lname>[^\n]+?)\]\]"
    rf'|\(\((?P<luuid>{_UUID})\)\))(?:[ \t]+"[^"\n]+")?[ \t]*\))'
)
_MDLINK = (
    rf"(?P<mdlink>{{image}}\[(?P<mlabel>{_LABEL_TEXT})\]"
    r"\((?P<murl>(?:[^()\n]|\([^()\n]*\))*)\))"
)
_LINK_TITLE = regex(r'[ \t]+"[^"\n]*"$')
# A block ref hides whatever it holds; only a UUID is a reference.
_BLOCK_REF = r"(?P<bref>\(\((?P<bid>[^)]+)\)\))"
# Emphasis opens before a non-space character that does not start its delimiter again, and
# closes at its first delimiter that follows a non-space character, or that follows a space and
# is followed by the end of the text or another delimiter character; '_' emphasis also wants
# punctuation or space around it. A code span inside is opaque.
_NONSPACE = r"[^ \t\n\r\f]"  # mldoc's white space is ASCII: a no-break space is text
# (A backtick that starts a code span is never text on its own: mldoc does not backtrack.)
_EM_TEXT = r"(?:`[^`\n]+`|``[\s\S]*?``|[^`]|`(?![^`\n]+`|`[\s\S]*?``))+?"
_PUNCT = r" \t\n\r\f!-/:-@\[-`{-~"
# '_' emphasis opens after white space or punctuation, line breaks not counted: mldoc looks at
# the last character before them (``a\n_b #c_`` has the tag "c_"; ``a \n_b #c_`` is emphasis);
# after the text's start, or line breaks only, it opens. (It looks through three line breaks at
# most: Python's lookbehinds are of fixed width.)
_WORD = rf"[^{_PUNCT}]"
_UNDERSCORE_OPENS = rf"(?<!{_WORD})(?<!{_WORD}\n)(?<!{_WORD}\n\n)(?<!{_WORD}\n\n\n)"
_EM = (
    rf"(?P<em>(?P<emd>\*\*\*|\*\*|\*|~~|\^\^|==)(?={_NONSPACE})(?!(?P=emd))(?P<emt>{_EM_TEXT})"
    rf"(?:(?<={_NONSPACE})(?P=emd)|(?P=emd)(?=[*~^=]|\Z)))"
)
_UNDERSCORE_EM = (
    rf"{_UNDERSCORE_OPENS}(?P<uem>(?P<emu>___|__|_)(?={_NONSPACE})(?!(?P=emu))(?P<emv>{_EM_TEXT})"
    rf"(?:(?<={_NONSPACE})(?P=emu)|(?P=emu)(?=_|\Z)))(?![^{_PUNCT}])"
)
# A #tag runs to white space or one of !"#',:? and takes page refs whole ("#[[a b]]c" is one tag
# of the page "[[a b]]c", and it references "a b" too); trailing "." and ";" are not part of it.
_TAG = r"(?P<tag>#(?P<tbody>(?:\[\[[^\n]+?\]\]|[^ \t\n!\"#',:?])+))"
_TAG_LINK = regex(r"\[\[([^\n]+?)\]\]")
# A tag's trailing "." and ";" are punctuation when only punctuation follows up to white space.
_TAG_TRAIL = regex(r"[!\"#',.:;?]*(?:[ \t\n\r\f]|$)")
_LOGSEQ_PIECES = (  # (the characters it can start with, its pattern), in mldoc's order
    ("`", _CODE_SPAN),
    ("\\", _LATEX_BRACKETS),
    ("\\", _ESCAPE),
    ("<", _TOKEN + _AUTOLINK),
    ("<", _TOKEN + _HTML),
    ("$", _LATEX),
    ("", _TOKEN + _URL),
    ("{", _TOKEN + _MACRO),
    ("[", _NESTED),
    ("#", _TAG),
    ("[", _REF),
    ("![", _LABELED.replace("{image}", _IMAGE)),
    ("![", _MDLINK.replace("{image}", _IMAGE)),
    ("[", _HICCUP),
    ("(", _TOKEN + _BLOCK_REF),
    ("@", _TOKEN + _EXPORT_SNIPPET),
    ("*~^=", _EM),
    ("_", _UNDERSCORE_EM),
)


class _Compiled(dict[str, "re.Pattern[str]"]):
    """Regular expressions by name, each compiled when first used: the grammar's alternations
    cost 16 ms to compile, more than scanning a page, and a page needs only some of them (those
    of the characters it holds, `_LOGSEQ_AT`)."""

    def __init__(self, sources: dict[str, str]) -> None:
        super().__init__()
        self.sources = sources

    def __missing__(self, name: str) -> re.Pattern[str]:
        pattern = self[name] = regex(self.sources[name])
        return pattern


_LOGSEQ = _Compiled(
    {
        "inline": (
            # A cheap first test of where a construct may start; it halves the scanning time.
            rf"(?=[`\\$\[*~^=_!#]|{_TOKEN}[A-Za-z0-9(<{{@])(?:"
            + "|".join(pattern for _, pattern in _LOGSEQ_PIECES)
            + ")"
        ),
        "emphasis": "|".join(  # all mldoc sees inside emphasis
            [
                *(_CODE_SPAN, _ESCAPE, _NESTED, _TAGREF, _REF),
                *(_LABELED.replace("{image}", ""), _MDLINK.replace("{image}", "")),
                *(_EM, _UNDERSCORE_EM),
            ]
        ),
        # HTML at the start of a line is a block of its own: the rest of the line starts a new
        # paragraph.
        "block html": _HTML,
    }
)
# Without "://" in the text no URL starts (the only construct that starts with a letter or a
# digit), so a construct can only start where _INLINE_START matches, and there only those that
# start with that character (_LOGSEQ_AT). Every alternative of _INLINE_START starts with a literal,
# so `re` finds those places with a quick scan in C; trying _LOGSEQ["inline"] at every position
# instead is many times slower.
_INLINE_START = regex(r"`|\\|<|\$|\{\{|\[|#|!\[|\(\(|\*|~~|\^\^|==|_|@@")
_LOGSEQ_AT = _Compiled(
    {
        char: "|".join(pattern for chars, pattern in _LOGSEQ_PIECES if char in chars)
        for char in "`\\<${[#!(*~^=_@"
    }
)


def _inline_matches(text: str) -> Iterable[re.Match[str]]:
    """What ``_LOGSEQ["inline"].finditer(text)`` yields, found faster (see `_INLINE_START`), with
    hiccup and HTML taken to their ends (`_to_end`)."""
    if "://" in text:
        if "[:" not in text and "<" not in text:
            return _LOGSEQ["inline"].finditer(text)
        return _searched(text)
    matches = []
    pos = 0
    while (start := _INLINE_START.search(text, pos)) is not None:
        pos = start.start()
        m = _LOGSEQ_AT[text[pos]].match(text, pos)
        if m is not None and m.lastgroup in _SPAN:
            m = _to_end(text, m)
        if m is None:
            pos += 1
        else:
            matches.append(m)
            pos = m.end()
    return matches


def _searched(text: str) -> list[re.Match[str]]:
    """`_inline_matches` of a text that holds a URL, and "[:" or "<"."""
    matches = []
    pos = 0
    while (m := _LOGSEQ["inline"].search(text, pos)) is not None:
        found = _to_end(text, m) if m.lastgroup in _SPAN else m
        if found is None:  # its "[" or "<" is text (no later construct starts with it)
            pos = m.start() + 1
        else:
            matches.append(found)
            pos = found.end()
    return matches


# Constructs whose end their pattern does not find, and a pattern to match them to it with
_SPAN = {name: regex(rf"(?P<{name}>[\s\S]*)") for name in ("hiccup", "html")}


def _to_end(text: str, head: re.Match[str]) -> re.Match[str] | None:
    """The whole hiccup or HTML that ``head`` matched the start of (an HTML element up to its
    first closing tag), or None if it does not close."""
    if head.lastgroup == "hiccup":
        end = _hiccup_end(text, head.end())
    elif (tag := head.group("htag")) is not None:
        end = _html_end(text, head.end("htag"), tag)
    else:
        return head  # a comment
    return None if end is None else _SPAN[str(head.lastgroup)].match(text, head.start(), end)


def html_end(text: str, pos: int) -> int | None:
    """Where HTML starting at ``pos`` ends (mldoc's HTML block), or None if none starts there."""
    m = _LOGSEQ["block html"].match(text, pos)
    found = None if m is None else _to_end(text, m)
    return None if found is None else found.end()


def _html_end(text: str, pos: int, tag: str) -> int | None:
    """Where an HTML element ends whose tag name ends at ``pos``: mldoc takes the text up to
    each closing tag in turn, counts every ``<tag>`` and ``<tag `` in it as opening another, and
    ends it at the closing tag that closes the first; without one, at the first "/>"."""
    level, start, closing = 1, pos, re.compile(f"</{re.escape(tag)}>", re.I)
    while (close := closing.search(text, pos)) is not None:
        chunk = text[pos : close.start()]
        level += chunk.count(f"<{tag}>") + chunk.count(f"<{tag} ") - 1
        pos = close.end()
        if level <= 0:
            return pos
    end = text.find("/>", start)
    return None if end < 0 else end + 2


def _hiccup_end(text: str, pos: int) -> int | None:
    """Where hiccup ends whose tag ends at ``pos``: mldoc takes the text up to each "]" in turn
    (across lines), counts every "[:" in it as opening an element, and lets the "]" close one
    unless it stands inside a string (after an odd number of '"' that are not ``\\"``)."""
    level, quotes = 1, 0
    while (close := text.find("]", pos)) >= 0:
        chunk = text[pos:close]
        level += chunk.count("[:")
        quotes += chunk.replace('\\"', "").count('"')
        level -= quotes % 2 == 0
        pos = close + 1
        if level <= 0:
            return pos
    return None


def _may_refer(text: str) -> bool:
    """Whether Logseq inline text may hold a reference: every one holds one of these (the test
    saves most of the scanning time of pages with little markup)."""
    return "[[" in text or "#" in text or "((" in text or "](" in text or "{{" in text


def _logseq_refs(
    text: str, lineno: int, out: list[Ref], kind: RefKind | None = None, col: int = 0
) -> None:
    """Append the references of Logseq inline text (a paragraph, a first line or a property
    value, as ``kind``) to ``out``; the text starts at column ``col`` of line ``lineno``."""
    if _may_refer(text):
        _inline_refs(text, lineno, out, kind, col)


def _inline_refs(text: str, lineno: int, out: list[Ref], kind: RefKind | None, col: int) -> None:
    """`_logseq_refs` once `_may_refer` holds (the hot path: one call per block title)."""
    lines = "\n" in text
    for m in _inline_matches(text):
        group, start = m.lastgroup, m.start()
        if lines and (nl := text.rfind("\n", 0, start)) >= 0:
            line, at = lineno + text.count("\n", 0, start), start - nl - 1
        else:
            line, at = lineno, col + start
        if group == "ref":
            out.append(Ref(m.group("name"), kind or "link", line, at, at + m.end() - start))
        elif group == "tag":
            body = m.group("tbody")
            if "[[" in body or body.endswith((".", ";")):
                _tag_refs(body, (line, at), out, kind, text, m.end())
            else:
                out.append(Ref(body, kind or "tag", line, at, at + 1 + len(body)))
        elif group in ("em", "uem") and kind is None:  # a property keeps its top-level refs only
            inner = "emt" if group == "em" else "emv"
            _emphasis_refs(m.group(inner), line, out, at + m.start(inner) - start)
        elif group == "macro" and kind == "property":  # mldoc skips macros in properties
            _logseq_refs(m.group()[2:-2], line, out, kind, at + 2)
        elif group == "macro" and m.group("mname") == "embed":
            _embed_refs(m.group("margs"), out, (line, at, at + m.end() - start))
        else:
            _link_ref(m, (line, at, at + m.end() - start), out, kind)


def _tag_refs(
    body: str, at: tuple[int, int], out: list[Ref], kind: RefKind | None, text: str, end: int
) -> None:
    """A #tag's page, as Logseq names it (the whole tag, unbracketed when it is all one
    ``[[X]]``), and each page ref inside it. The tag stands in ``text`` up to ``end``."""
    name = body
    if body.endswith((".", ";")) and _TAG_TRAIL.match(text, end):
        name = body.rstrip(".;")
    if not name:
        return
    line, start = at
    span = (line, start, start + 1 + len(name))
    whole = name[2:-2] if name.startswith("[[") and name.endswith("]]") else name
    if whole:
        out.append(Ref(whole, kind or "tag", *span))
    if "[[" in name:
        for m in _TAG_LINK.finditer(name):
            if m.group(1) != whole:
                out.append(Ref(m.group(1), kind or "link", *span))


def _link_ref(
    m: re.Match[str], span: tuple[int, int, int], out: list[Ref], kind: RefKind | None
) -> None:
    """The page or block that a [[link]], #[[tag]], [label]([[link]]) or ((ref)) points at."""
    group = m.lastgroup
    if group == "ref":
        out.append(Ref(m.group("name"), kind or "link", *span))
    elif group == "tagref":
        out.append(Ref(m.group("tname"), kind or "tag", *span))
    elif group == "labeled" and m.group("lname"):
        out.append(Ref(m.group("lname"), kind or "labeled", *span))
    elif group == "labeled":
        out.append(Ref(m.group("luuid").lower(), "block", *span))
    elif group == "nested":
        out.append(Ref(m.group("outer"), kind or "link", *span))
        line, col, _ = span
        inner = col + m.start("inner") - m.start()
        out.append(
            Ref(
                m.group("inner"), kind or "link", line, inner - 2, inner + 2 + len(m.group("inner"))
            )
        )
    elif group == "bref" and _UUID_RE.fullmatch(m.group("bid")):
        out.append(Ref(m.group("bid").lower(), "block", *span))
    elif group == "mdlink" and kind is None:  # a property value keeps its page refs only
        _markdown_link_ref(m, span, out, kind)


def _emphasis_refs(inner: str, lineno: int, out: list[Ref], col: int) -> None:
    """Inside **emphasis** mldoc still links pages (``#[[X]]`` becomes a plain link) but sees no
    #tag, ((ref)) or macro."""
    if "[[" not in inner and "((" not in inner and "](" not in inner:
        return  # every reference there holds one of them
    for m in _LOGSEQ["emphasis"].finditer(inner):
        group, start = m.lastgroup, m.start()
        if (nl := inner.rfind("\n", 0, start)) >= 0:
            line, at = lineno + inner.count("\n", 0, start), start - nl - 1
        else:
            line, at = lineno, col + start
        if group in ("em", "uem"):
            sub = "emt" if group == "em" else "emv"
            _emphasis_refs(m.group(sub), line, out, at + m.start(sub) - start)
        elif group == "tagref":
            out.append(Ref(m.group("tname"), "link", line, at, at + m.end() - start))
        elif group in ("ref", "nested", "labeled", "mdlink"):
            _link_ref(m, (line, at, at + m.end() - start), out, None)


def _embed_refs(args: str, out: list[Ref], span: tuple[int, int, int]) -> None:
    """``{{embed [[X]]}}`` references page X and ``{{embed ((uuid))}}`` a block; Logseq takes any
    other argument for a page name too, as written."""
    args = args.lstrip(" \t")
    stripped = args.rstrip(" \t")
    if stripped.startswith("[[") and stripped.endswith("]]"):
        out.append(Ref(stripped[2:-2], "embed", *span))
    elif stripped.startswith("((") and _UUID_RE.fullmatch(stripped[2:-2]):
        out.append(Ref(stripped[2:-2].lower(), "block", *span))
        out.append(Ref(stripped[2:-2], "embed", *span))  # Logseq makes a page of the id too
    elif stripped and "," not in args:  # (mldoc splits arguments at commas its own way)
        out.append(Ref(args, "embed", *span))


def _markdown_link_ref(
    m: re.Match[str], span: tuple[int, int, int], out: list[Ref], kind: RefKind | None
) -> None:
    """What Logseq links for a Markdown link that is not ``[label]([[X]])``: the page named by
    its label when it points at a .md file, the page of a whole ``[[X]]`` target (``<[[X]]>``)."""
    url = m.group("murl").strip()
    if url.startswith("<") and url.endswith(">"):
        url = url[1:-1].strip()
    else:
        url = _LINK_TITLE.sub("", url)
    if "://" in url or _SCHEME.match(url):
        return
    if (
        len(url) > 3
        and url.lower().endswith((".md", ".markdown"))
        and not m.group().startswith("!")
    ):
        label = _file_link_label(m.group("mlabel"))
        if label is not None:
            out.append(Ref(label, kind or "markdown", *span))
    elif url.startswith("[[") and url.endswith("]]") and len(url) > 4:
        out.append(Ref(url[2:-2], kind or "labeled", *span))


_SCHEME = regex(r"[A-Za-z][\w+.-]*:")


def _file_link_label(label: str) -> str | None:
    """The page a Markdown link to a Markdown file (``[text](x.md)``) refers to, to Logseq's
    graph parser (block.cljs ``get-page-reference``: a "File" link's first label node): its
    plain text up to the first construct; none where the label starts with a construct."""
    first = next(iter(_inline_matches(label)), None)
    text = label if first is None else label[: first.start()]
    return text if text.strip() and (first is None or first.start() > 0) else None
