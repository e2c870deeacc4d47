"""Seeded generator of realistic-but-varied Logseq page texts, for the mldoc conformance test.

`logseq_page(rng)` writes a page the way people and Logseq write them: nested bullets (tab, 2- or
4-space indentation, or a mix), continuation lines, block and page properties, fenced code,
inline code, every reference form, task markers, URLs, emphasis, LaTeX, HTML, hiccup, export
snippets, non-ASCII names, top-level headings, empty bullets and blank lines; some files use CRLF,
start with a BOM or lack the final newline. It is a pure function of the generator's state.

Constructs deliberately left out, because people do not write them and mldoc's answer there is
an accident of its grammar (what mldoc does is given for each):

* text glued to a bracketed tag (``#[[a]]b``, ``#a[[b]]c``): one Tag node of mixed parts.
* HTML at the start of a line followed by ``- x``: mldoc makes the rest of the line a new bullet.
* Markdown quotes, lists and tables inside a bullet's body (``> #t``): parsed as their own blocks.
* a ``]``, ``)`` or ``}`` typed right before ``((uuid))``, a URL or a macro, and a backslash
  inside a #tag: mldoc's answer depends on whether the character ended a construct.
* footnotes ``[^1]``, ``_{...}`` subscripts: org-mode leftovers that hide the references inside
  them.
* inline code whose backticks stand on different lines of a paragraph: mldoc reads one code
  span across the lines.
"""

from __future__ import annotations

import random
from collections.abc import Callable

PAGE_NAMES = [
    "Project Alpha",
    "meeting notes",
    "Weekly Review",
    "journal-agent",
    "Logseq",
    "PKM",
    "Reading List",
    "Ideas",
    "Home",
    "Q3 planning",
    "customer feedback",
    "Rust",
    "Python",
    "Café Müller",
    "中文笔记",
    "🎉 Party",
    "naïve Bayes",
    "Ελληνικά",
    "Zürich trip",
    "Projects/Website Redesign",
    "Area/Health",
    "Books/Deep Work",
    "C++",
    "2024-01-05",
    "Jan 5th, 2024",
    "Dr. Smith",
    "O'Reilly",
    "AI & ethics",
    "v1.2 release",
    "todo",
    "Mom",
    "Team Sync",
    "bug #42",
    "Onboarding (draft)",
]
TAG_WORDS = [
    "idea",
    "todo",
    "reading-list",
    "book/fiction",
    "reading_list",
    "café",
    "中文",
    "python3",
    "2024",
    "Q1",
    "v1.2",
    "C++",
    "urgent",
    "follow-up",
    "🎉",
    "naïve",
    "ml/nlp",
    "Work",
    "meeting",
    "a.b",
    "x_y",
]
MULTI_WORD = [
    "multi word",
    "Project Alpha",
    "meeting notes",
    "Café Müller",
    "中文 笔记",
    "Area/Health",
    "Q3 planning",
    "Dr. Smith",
    "AI & ethics",
]
WORDS = [
    "the",
    "a",
    "meeting",
    "with",
    "about",
    "decided",
    "to",
    "ship",
    "it",
    "next",
    "week",
    "fixed",
    "bug",
    "in",
    "parser",
    "review",
    "notes",
    "and",
    "then",
    "→",
    "—",
    "é",
    "über",
    "naïve",
    "日本語",
    "😀",
    "42",
    "3.14",
    "e.g.",
    "i.e.",
    "(draft)",
    "[1]",
    "x+y",
    "a/b",
    "50%",
    "&",
    "C#",
    "issue#123",
    "page#section",
    "word#tag",
    "v2",
    "ok!",
    "really?",
    '"quoted"',
    "it's",
    "snake_case",
    "2*3",
    "a=b",
    "~approx",
    "$5",
    "@alice",
    "{x}",
    "<3",
    "a > b",
    "re:",
    "-",
    "--",
    "+1",
    "100%",
    "foo.bar",
    "q&a",
    "ünïcödé",
]
LABELS = ["see here", "this page", "docs", "label", "ref", "the spec"]
URLS = [
    "https://example.com/docs#section",
    "https://github.com/logseq/logseq/issues/11327",
    "http://localhost:8080/#/page/x",
    "https://en.wikipedia.org/wiki/Tag_(metadata)#History",
    "https://x.com/a?b=1&c=2#frag",
    "file:///home/me/notes.md",
]
MARKERS = ["TODO", "DONE", "LATER", "NOW", "CANCELED", "CANCELLED", "DOING", "WAITING"]
LANGS = ["", "python", "js", "clojure", "bash", "md"]
CODE_LINES = [
    "x = [[not a ref]]",
    "# a comment, not a heading",
    "#include <stdio.h>",
    "print('#tag')",
    "- not a bullet",
    "key:: not a property",
    "arr[[0]] = 1",
    "{{embed [[no]]}}",
    "((6512c3b8-1d0f-4e3a-9a4b-2c1d5e6f7a8b))",
    "",
]


def _uuid(rng: random.Random) -> str:
    h = "".join(rng.choice("0123456789abcdef") for _ in range(32))
    if rng.random() < 0.1:
        h = h.upper()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _tag(rng: random.Random) -> str:
    tag = "#" + rng.choice(TAG_WORDS)
    r = rng.random()
    if r < 0.25:
        tag += rng.choice([".", ",", ";", ":", "!", "?", "...", ")", "'", '"'])
    elif r < 0.32:
        tag = "(" + tag + ")"
    elif r < 0.36:
        tag = "#" + rng.choice(TAG_WORDS) + tag  # #x#y
    return tag


def _ref(rng: random.Random) -> str:
    """One reference in any of the forms Logseq users write."""
    name = rng.choice(PAGE_NAMES)
    forms = [
        (8, lambda: f"[[{name}]]"),
        (6, lambda: _tag(rng)),
        (3, lambda: f"#[[{rng.choice(MULTI_WORD)}]]"),
        (1, lambda: f"#[[{name}]]" + rng.choice([".", ",", ""])),
        (2, lambda: f"[{rng.choice(LABELS)}]([[{name}]])"),
        (1, lambda: f"{{{{embed [[{name}]]}}}}"),
        (2, lambda: f"(({_uuid(rng)}))"),
        (1, lambda: f"{{{{embed (({_uuid(rng)}))}}}}"),
        (1, lambda: f"[[{name}]]" + rng.choice([".", ",", ":", ")", "'s"])),
        (1, lambda: f"**[[{name}]]**"),
    ]
    return _weighted(rng, forms)


def _noise(rng: random.Random) -> str:
    """Text that looks like a reference, or holds one, but where the rules differ."""
    name = rng.choice(PAGE_NAMES)
    forms = [
        (3, lambda: rng.choice(URLS)),
        (2, lambda: f"[{rng.choice(LABELS)}]({rng.choice(URLS)})"),
        (2, lambda: f"`{rng.choice(['[[x]]', '#tag', 'a #b', 'code', '{{embed [[x]]}}'])}`"),
        (1, lambda: f"``[[{name}]] `x` #t``"),
        (2, lambda: f"**{rng.choice(WORDS)} {rng.choice(WORDS)}**"),
        (1, lambda: f"*{rng.choice(WORDS)}*"),
        (1, lambda: f"**bold {_tag(rng)}**"),
        (1, lambda: f"_{rng.choice(['under', 'see'])} {_tag(rng)}_"),
        (1, lambda: f"~~{rng.choice(WORDS)} [[{name}]]~~"),
        (1, lambda: f"=={rng.choice(WORDS)}=="),
        (1, lambda: "$x^2$"),
        (1, lambda: f"<kbd>{rng.choice(['Ctrl', 'Esc'])}</kbd>"),
        (1, lambda: f"<span>[[{name}]]</span>"),
        (1, lambda: f"<span><span>x</span> [[{name}]]</span>"),
        (1, lambda: "<!-- [[hidden]] -->"),
        (1, lambda: f"\\#{rng.choice(TAG_WORDS)}"),
        (1, lambda: f"[{rng.choice(LABELS)}](pages/{rng.choice(['a', 'b'])}.md)"),
        (1, lambda: f"![img](../assets/{rng.choice(['a', 'b'])}.png)"),
        (1, lambda: f"{{{{query [[{name}]]}}}}"),
        (1, lambda: "{{renderer :todomaster}}"),
        (1, lambda: "<2024-01-05 Fri>"),
        (1, lambda: "[ ]"),
        (1, lambda: "((sic))"),
        (1, lambda: f"[[{name}]]#{rng.choice(TAG_WORDS)}"),
        (1, lambda: rng.choice(["\\( {} \\)", "\\[ x {} \\]", "\\( {}"]).format(f"[[{name}]]")),
        (
            1,
            lambda: rng.choice(['[:div "[[{}]]"]', "[:span.c [[{}]]]", "[:b [:i [[{}]]]]"]).format(
                name
            ),
        ),
        (1, lambda: f"@@html: [[{name}]]@@"),
        (1, lambda: f"<https://example.com/[[{name}]]>"),
    ]
    return _weighted(rng, forms)


def _weighted(rng: random.Random, forms: list[tuple[int, Callable[[], str]]]) -> str:
    make = rng.choices([f for _, f in forms], [w for w, _ in forms])[0]
    return make()


def _inline(rng: random.Random, *, refs: bool = True) -> str:
    """A line of text: words with references and look-alikes among them."""
    parts = []
    for _ in range(rng.randint(1, 9)):
        r = rng.random()
        if refs and r < 0.22:
            parts.append(_ref(rng))
        elif r < 0.33:
            parts.append(_noise(rng))
        else:
            parts.append(rng.choice(WORDS))
    if parts[0].startswith("<") and len(parts) > 1 and parts[1][:1] in "-#":
        parts[1] = "and"  # HTML then "- x" at a line's start: see the module docstring
    return " ".join(parts)


def _marker(rng: random.Random) -> str:
    if rng.random() > 0.25:
        return ""
    marker = rng.choice(MARKERS) + " "
    if rng.random() < 0.3:
        marker += f"[#{rng.choice('ABC')}] "
    return marker


def _property(rng: random.Random, page: bool = False) -> str:
    name = rng.choice(PAGE_NAMES).replace(",", "")
    choices = [
        f"alias:: {name}",
        f"alias:: {rng.choice(TAG_WORDS)}, [[{rng.choice(MULTI_WORD)}]]",
        f"tags:: {rng.choice(TAG_WORDS)}, [[{rng.choice(MULTI_WORD)}]]",
        f"tags:: [[{name}]]",
        f"type:: [[{name}]]",
        f"related:: [[{name}]], [[{rng.choice(PAGE_NAMES)}]]",
        f"source:: {rng.choice(URLS)}",
        f"status:: {rng.choice(['open', 'done', 'waiting'])}",
        f"icon:: {rng.choice(['🎉', '📚', '*'])}",
        f"created-at:: {rng.randint(1600000000000, 1800000000000)}",
        f"{rng.choice(['Odd_Key', 'UPPER', 'a.b', 'key_2', 'créé'])}:: [[{name}]]",
        f'quote:: "{_inline(rng)}"',
        f"rating:: {rng.randint(1, 5)}",
        f"description:: {_inline(rng)}",
    ]
    if page:
        choices += [f"title:: {name}", "public:: true", f"title:: {rng.choice(PAGE_NAMES)}"]
    else:
        choices += [f"id:: {_uuid(rng)}", "collapsed:: true", "collapsed:: false"]
    return rng.choice(choices)


def _fence(rng: random.Random, indent: str) -> list[str]:
    mark = rng.choice(["```", "```", "~~~", "````"])
    lines = [indent + mark + rng.choice(LANGS)]
    extra = rng.choice(["", "", "  ", "\t"])  # code indented differently from the bullet
    lines += [indent + extra + rng.choice(CODE_LINES) for _ in range(rng.randint(0, 4))]
    close = rng.choices([indent, indent + "  ", ""], [8, 1, 1])[0]
    lines.append(close + mark)
    return lines


BEGIN_KINDS = ["QUOTE", "NOTE", "TIP", "SRC python", "EXAMPLE", "QUERY", "COMMENT", "EXPORT html"]


def _begin_block(rng: random.Random, indent: str) -> list[str]:
    """A #+BEGIN_… block: its content's ``- x`` lines are no blocks; some kinds hold no refs;
    one without its END is text (and ``#+BEGIN_X`` a tag)."""
    kind = rng.choice(BEGIN_KINDS)
    name = kind.split()[0]
    begin = "#+" + rng.choice(["BEGIN_", "begin_"]) + kind
    body = [indent + rng.choice(["- ", "", "  "]) + _inline(rng) for _ in range(rng.randint(0, 3))]
    end = [] if rng.random() < 0.1 else [indent + rng.choice(["#+END_", "#+end_"]) + name]
    return [indent + begin, *body, *end]


def _raw_block(rng: random.Random, indent: str) -> list[str]:
    """HTML or a LaTeX environment over several lines: to its end (bullets and all) a block of
    its own without references; text after its end starts a paragraph. Unclosed, HTML is text
    and a LaTeX environment runs to the end of the page."""
    if rng.random() < 0.5:
        tag = rng.choice(["div", "details", "section"])
        start, end = f"<{tag}>", f"</{tag}>"
    else:
        env = rng.choice(["equation", "align*", "matrix"])
        start, end = f"\\begin{{{env}}}", rng.choice([f"\\end{{{env}}}", f"\\END{{{env.upper()}}}"])
    body = [indent + rng.choice(["", "- ", "  "]) + _inline(rng) for _ in range(rng.randint(0, 2))]
    tail = rng.choice(["", "", " and " + _inline(rng)])
    last = [indent + end + tail] if rng.random() < 0.95 else []
    return [indent + start + rng.choice(["", " " + _inline(rng)]), *body, *last]


def _front_line(rng: random.Random) -> str:
    name = rng.choice(PAGE_NAMES).replace(",", "")
    return rng.choice(
        [f"title: {name}", f"alias: {name}", f"tags: {name}, [[{rng.choice(MULTI_WORD)}]]"]
        + [f"{rng.choice(['type', 'source', 'Odd_Key'])}: [[{name}]]"]
    )


def _task_lines(rng: random.Random, cont: str) -> list[str]:
    """What Logseq writes under a task: a schedule or deadline, and a logbook."""
    lines = []
    if rng.random() < 0.6:
        lines.append(cont + rng.choice(["SCHEDULED", "DEADLINE"]) + ": <2024-01-05 Fri>")
    if rng.random() < 0.5:
        lines += [cont + ":LOGBOOK:", cont + "CLOCK: [2024-01-05 Fri 10:00:00]", cont + ":END:"]
    return lines


def _drawer(rng: random.Random, cont: str) -> list[str]:
    """A drawer: to the next ``:END:`` line (a later block's too) it holds no references; a
    ``:PROPERTIES:`` one of ``:key: value`` lines holds the block's properties."""
    name = rng.choice(["PROPERTIES", "properties", "LOGBOOK", "my-drawer", "a.b"])
    if name.upper() == "PROPERTIES" and rng.random() < 0.7:
        body = [f":{p.replace('::', ':', 1)}" for p in (_property(rng) for _ in range(2))]
    else:
        body = [_inline(rng) for _ in range(rng.randint(0, 2))]
    end = [] if rng.random() < 0.15 else [rng.choice([":END:", ":end:", ":END:  "])]
    return [cont + line for line in [f":{name}:", *body, *end]]


class _Page:
    """Accumulates the lines of one page while the outline is generated."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[str] = []
        self.style = rng.choice(["tab", "tab", "tab", "2", "4", "mixed"])

    def unit(self) -> str:
        style = self.style if self.style != "mixed" else self.rng.choice(["tab", "2", "4"])
        return {"tab": "\t", "2": "  ", "4": "    "}[style]

    def block(self, indent: str, depth: int) -> None:
        rng = self.rng
        cont = indent + "  "
        self.first_line(indent, cont)
        if rng.random() < 0.25:
            self.lines += [cont + _property(rng) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.03:
            self.lines.append(cont + f"a::b:: [[{rng.choice(PAGE_NAMES)}]]")
        if rng.random() < 0.1:
            self.lines += _task_lines(rng, cont)
        if rng.random() < 0.05:
            self.lines += _drawer(rng, cont)
        for _ in range(rng.choices([0, 1, 2], [6, 3, 1])[0]):
            r = rng.random()
            if r < 0.2:
                self.lines += _fence(rng, cont)
            elif r < 0.25:
                self.lines.append(cont + "#" * rng.randint(1, 4) + " " + _inline(rng))
            elif r < 0.3:
                self.lines += _begin_block(rng, cont)
            elif r < 0.33:
                self.lines += _raw_block(rng, cont)
            else:
                self.lines.append(cont + _inline(rng) + rng.choice(["", "", "", " ", "  "]))
        if rng.random() < 0.06:
            self.lines.append(rng.choice(["", "  ", "\t", cont]))
        if depth < 4 and rng.random() < 0.45:
            child = indent + self.unit()
            for _ in range(rng.randint(1, 3)):
                self.block(child, depth + 1)

    def first_line(self, indent: str, cont: str) -> None:
        rng = self.rng
        r = rng.random()
        if r < 0.05:
            self.lines.append(indent + rng.choice(["-", "- ", "-   "]))
        elif r < 0.09:
            fence = _fence(rng, cont)
            self.lines.append(indent + "- " + fence[0].lstrip(" \t"))
            self.lines += fence[1:]
        elif r < 0.13:
            self.lines.append(indent + "- " + "#" * rng.randint(1, 3) + " " + _inline(rng))
        elif r < 0.16:
            self.lines.append(indent + "-\t" + _inline(rng))
        elif r < 0.18:
            block = _begin_block(rng, cont)
            self.lines += [indent + "- " + block[0].lstrip(" \t"), *block[1:]]
        elif r < 0.195:
            block = _raw_block(rng, cont)
            self.lines += [indent + "- " + block[0].lstrip(" \t"), *block[1:]]
        elif r < 0.22:  # a property on the first line opens the block's properties
            self.lines.append(indent + "- " + _marker(rng) * (rng.random() < 0.3) + _property(rng))
        elif r < 0.23:  # a key with a colon makes no property: text, and its refs count
            key = rng.choice(["a::b", "k:x", "ab:"])
            self.lines.append(indent + "- " + f"{key}:: [[{rng.choice(PAGE_NAMES)}]]")
        else:
            self.lines.append(indent + "- " + _marker(rng) + _inline(rng))

    def preamble(self) -> None:
        rng = self.rng
        if rng.random() < 0.3:
            r = rng.random()
            if r < 0.15:  # YAML front matter: key: value lines between --- lines
                self.lines += ["---", *(_front_line(rng) for _ in range(rng.randint(0, 3))), "---"]
            elif r < 0.25:  # org-style directives
                self.lines += [f"#+{_property(rng, page=True).replace('::', ':', 1)}"]
            else:
                self.lines += [_property(rng, page=True) for _ in range(rng.randint(1, 4))]
            if rng.random() < 0.5:
                self.lines.append("")

    def top_level(self) -> None:
        rng = self.rng
        if rng.random() < 0.08:
            self.lines.append("#" * rng.randint(1, 3) + " " + _inline(rng))
        else:
            self.block("", 0)
        if rng.random() < 0.05:
            self.lines.append(rng.choice(["", " ", "\t"]))


def logseq_page(rng: random.Random) -> str:
    """One random Logseq page text (CRLF, BOM and final newline vary from file to file)."""
    page = _Page(rng)
    page.preamble()
    for _ in range(rng.randint(1, 6)):
        page.top_level()
    newline = "\r\n" if rng.random() < 0.15 else "\n"
    text = newline.join(page.lines)
    if rng.random() < 0.8:
        text += newline
    if rng.random() < 0.1:
        text = "\ufeff" + text
    return text
