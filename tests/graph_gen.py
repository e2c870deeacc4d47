"""Logseq file graphs for the graph-parser oracle test (tests/test_logseq_graph_oracle.py).

Three kinds, all pure functions of their arguments (the same seed always gives the same bytes):

* `CASES` (tests/graph_cases.py): one small graph per construct where journal-agent's backlinks
  or journal days may part from Logseq's (namespaces and aliases, property keys, task markers and
  priorities, built-in pages, ``#+BEGIN_…`` blocks, org-mode pages, odd page-name spellings, YAML
  titles, date pages, journal file names, path-refs, tags). Each case says what Logseq does.
* `generate`: a seeded graph of a few hundred pages and journals that mixes all of those
  constructs with ordinary writing (nested bullets, references in every spelling, aliases,
  tags, properties, code), the way a real graph accumulates them.
* `mldoc_journals`: journals of the mldoc conformance generator, the oddest text people write.

`write_graph` writes either into a folder (the tests write only under their tmp_path).
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

from .graph_cases import CASES as CASES
from .graph_cases import Case as Case

CONFIG_EDN = (
    "{:meta/version 1\n"
    ' :preferred-format "Markdown"\n'
    ' :journal/page-title-format "MMM do, yyyy"\n'
    ' :journal/file-name-format "yyyy_MM_dd"\n'
    " :file/name-format :triple-lowbar\n"
    " :property/separated-by-commas #{:people}}\n"
)
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th`` … as Logseq's ``do`` token writes a day."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def journal_title(day: dt.date) -> str:
    """The journal page title under ``MMM do, yyyy``."""
    return f"{MONTHS[day.month - 1]} {ordinal(day.day)}, {day.year}"


def page_file(title: str, ext: str = ".md") -> str:
    """The ``:triple-lowbar`` file of a page title (titles here hold no reserved character)."""
    return "pages/" + title.replace("/", "___") + ext


def journal_file(day: dt.date, ext: str = ".md") -> str:
    return f"journals/{day:%Y_%m_%d}{ext}"


def write_graph(root: Path, files: dict[str, str]) -> Path:
    """Write a graph (``logseq/config.edn`` unless ``files`` brings one) into ``root``."""
    files = {"logseq/config.edn": CONFIG_EDN, **files}
    for rel, text in sorted(files.items()):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    return root


# ---------------------------------------------------------------------------------------------
# a generated graph

_WORDS = """
atlas migration cluster backup grafana latency flaky test harness redis worker queue schema
drift rollback snapshot runbook deploy canary release pipeline build cache index search parser
outline journal page block link alias graph sync conflict merge branch review design meeting
budget roadmap quarter planning hiring interview onboarding mentor feedback retro incident alert
dashboard metric trace storage bucket network proxy gateway certificate token auth session
garden kitchen recipe coffee bread running cycling yoga sleep doctor taxes invoice contract
client vendor travel flight hotel museum concert book novel essay podcast lecture course thesis
café naïve zürich résumé
""".split()
NAMESPACES = ["Projects", "People", "Areas", "Meetings", "Reading", "Whiteboard"]
PROPERTY_KEYS = ["type", "status", "rating", "source", "owner", "foo"]
MARKERS = ["TODO", "DOING", "DONE", "NOW", "LATER", "WAITING", "CANCELED", "CANCELLED"]
BUILT_IN = ["Contents", "Favorites", "card", "A", "B", "C", "TODO", "DONE", "NOW"]
END = dt.date(2026, 11, 27)


class _Gen:
    """The random source, the page titles and their aliases."""

    def __init__(self, seed: int, pages: int) -> None:
        self.rng = random.Random(seed)
        self.titles = self._titles(pages)
        self.aliases: dict[str, list[str]] = {}
        taken = {t.lower() for t in self.titles}
        for i, title in enumerate(self.titles):
            r = self.rng.random()
            if r < 0.12:
                if r < 0.03 and "/" in title:  # the leaf of a namespace page
                    alias = title.rsplit("/", 1)[1] + " leaf"
                elif r < 0.05:  # a namespaced alias
                    alias = f"{self.rng.choice(NAMESPACES)}/{title.split('/')[-1]} {i}"
                elif r < 0.06:  # an alias that is also a namespace parent
                    alias = self.rng.choice(NAMESPACES)
                else:
                    alias = "".join(w[0] for w in title.replace("/", " ").split()).upper() + str(i)
                if alias.lower() not in taken:
                    taken.add(alias.lower())
                    self.aliases[title] = [alias]
        self.names = self.titles + [a for al in self.aliases.values() for a in al]

    def _titles(self, n: int) -> list[str]:
        rng = self.rng
        out: list[str] = []
        seen: set[str] = set()
        while len(out) < n:
            words = [w.capitalize() for w in rng.sample(_WORDS, rng.choice((1, 2, 2, 3)))]
            title = " ".join(words)
            r = rng.random()
            if r < 0.15:
                title = f"{rng.choice(NAMESPACES)}/{title}"
            elif r < 0.2:
                title = f"{rng.choice(NAMESPACES)}/{rng.choice(_WORDS).capitalize()}/{title}"
            if title.lower() not in seen:
                seen.add(title.lower())
                out.append(title)
        return out

    # -- text -------------------------------------------------------------------------------

    def name(self) -> str:
        """A page name to refer to: mostly titles (a few popular), sometimes an alias or a
        name that only exists by reference."""
        rng = self.rng
        r = rng.random()
        if r < 0.03:
            return rng.choice(["Loose Idea", "Someday", "Inbox", "projects/new thing"])
        if r < 0.05:
            return rng.choice(BUILT_IN)
        if r < 0.35:
            return self.names[int(rng.paretovariate(1.2)) % len(self.names)]
        return rng.choice(self.names)

    def ref(self, name: str) -> str:
        """A reference to ``name`` in one of Logseq's spellings."""
        rng = self.rng
        r = rng.random()
        if r < 0.05:
            name = name.lower()
        if r < 0.2 and all(c.isalnum() or c in "/-_" for c in name):
            return "#" + name
        if r < 0.27:
            return f"#[[{name}]]"
        if r < 0.3:
            return f"[see]([[{name}]])"
        if r < 0.31:
            return f"{{{{embed [[{name}]]}}}}"
        if r < 0.315:
            return f"{{{{{{embed [[{name}]]}}}}}}"
        if r < 0.32:
            return f"[[/{name}/]]"
        if r < 0.325:
            return f"[[{name} ]]"
        if r < 0.34:
            return f"**[[{name}]]**"
        return f"[[{name}]]"

    def sentence(self, refs: float) -> str:
        rng = self.rng
        parts = rng.choices(_WORDS, k=rng.randint(3, 10))
        count = int(refs) + (rng.random() < refs - int(refs))
        for _ in range(count):
            parts.insert(rng.randint(0, len(parts)), self.ref(self.name()))
        if rng.random() < 0.05:
            parts.insert(rng.randint(0, len(parts)), "`[[not a ref]]`")
        return " ".join(parts)

    def special(self, pad: str) -> list[str]:
        """A construct under a block: properties, code, #+BEGIN blocks."""
        rng = self.rng
        n = self.ref(self.name())
        choices = [
            [f"{pad}{rng.choice(PROPERTY_KEYS)}:: {rng.choice(_WORDS)}"],
            [f"{pad}project:: {n}"],
            [f"{pad}collapsed:: true"],
            [f"{pad}people:: {rng.choice(self.titles)}, {rng.choice(_WORDS)}"],
            [f"{pad}```", f"{pad}x = {n}", f"{pad}```"],
            [f"{pad}#+BEGIN_QUERY", f"{pad}{{:title {n}}}", f"{pad}#+END_QUERY"],
            [f"{pad}#+BEGIN_EXAMPLE", f"{pad}- {n} inside", f"{pad}#+END_EXAMPLE"],
            [f"{pad}#+BEGIN_SRC python", f"{pad}y = '{n}'", f"{pad}#+END_SRC"],
            [f"{pad}#+BEGIN_QUOTE", f"{pad}- {n} said so", f"{pad}#+END_QUOTE"],
            [f"{pad}#+BEGIN_NOTE", f"{pad}about {n}", f"{pad}#+END_NOTE"],
            [f"{pad}{self.sentence(0.5)}"],
        ]
        return rng.choice(choices)

    def bullets(self, n: int, refs: float, tasks: float) -> list[str]:
        rng = self.rng
        lines: list[str] = []
        depth = 0
        for i in range(n):
            depth = 0 if i == 0 else max(0, min(depth + rng.choice((-1, 0, 0, 1)), 3))
            indent = "\t" * depth
            marker = rng.choice(MARKERS) + " " if rng.random() < tasks else ""
            priority = f"[#{rng.choice('ABC')}] " if rng.random() < 0.04 else ""
            lines.append(f"{indent}- {marker}{priority}{self.sentence(refs)}")
            if rng.random() < 0.15:
                lines.extend(self.special(indent + "  "))
        return lines

    def org_bullets(self, n: int, refs: float) -> list[str]:
        rng = self.rng
        lines = []
        depth = 1
        for i in range(n):
            depth = 1 if i == 0 else max(1, min(depth + rng.choice((-1, 0, 1)), 3))
            marker = rng.choice(MARKERS) + " " if rng.random() < 0.1 else ""
            lines.append("*" * depth + " " + marker + self.sentence(refs))
        return lines

    # -- files ------------------------------------------------------------------------------

    def page(self, title: str) -> tuple[str, str]:
        """(path, text) of one page."""
        rng = self.rng
        r = rng.random()
        props: list[str] = []
        if self.aliases.get(title):
            props.append("alias:: " + ", ".join(self.aliases[title]))
        if rng.random() < 0.15:
            props.append("tags:: " + ", ".join(f"[[{self.name()}]]" for _ in range(2)))
        if rng.random() < 0.1:
            props.append(f"{rng.choice(PROPERTY_KEYS)}:: {rng.choice(_WORDS)}")
        n = min(int(rng.lognormvariate(1.2, 0.7)) + 1, 30)
        if r < 0.05:  # an org-mode page
            head = [f"#+TITLE: {title}"] + [f"#+ALIAS: {a}" for a in self.aliases.get(title, [])]
            body = self.org_bullets(n, 0.5)
            return page_file(title.replace("/", "-"), ".org"), "\n".join(head + [""] + body) + "\n"
        if r < 0.08:  # YAML front matter
            head = ["---", f"title: {title}"]
            head += [f"alias: {', '.join(self.aliases[title])}"] if self.aliases.get(title) else []
            body = self.bullets(n, 0.5, 0.05)
            return f"pages/yaml-{len(title)}-{rng.randint(0, 9999)}.md", "\n".join(
                head + ["---", ""] + body
            ) + "\n"
        if r < 0.12 and "/" not in title:  # title:: property with another file name
            props.insert(0, f"title:: {title}")
            body = self.bullets(n, 0.5, 0.05)
            return f"pages/titled-{rng.randint(0, 99999)}.md", "\n".join(props + [""] + body) + "\n"
        body = self.bullets(n, 0.5, 0.05)
        return page_file(title), "\n".join(props + ([""] if props else []) + body) + "\n"

    def journal(self, day: dt.date) -> tuple[str, str]:
        rng = self.rng
        r = rng.random()
        lines = self.bullets(rng.randint(2, 10), 0.9, 0.2)
        if rng.random() < 0.2:  # a thread and its resolution
            topic = self.ref(self.name())
            lines += [f"- working on {topic}", f"\t- {rng.choice(MARKERS)} {self.sentence(0.2)}"]
        if rng.random() < 0.06:
            back = day - dt.timedelta(days=rng.randint(1, 40))
            fmt = rng.choice([journal_title(back), f"{back:%Y-%m-%d}"])
            lines.insert(rng.randint(0, len(lines)), f"- follow-up of [[{fmt}]]")
        if r < 0.05:
            return journal_file(day, ".org"), "\n".join(self.org_bullets(4, 0.9)) + "\n"
        if r < 0.08:
            return f"journals/{day:%Y-%m-%d}.md", "\n".join(lines) + "\n"
        return journal_file(day), "\n".join(lines) + "\n"


def generate(seed: int = 1, pages: int = 220, days: int = 150) -> dict[str, str]:
    """The files (relative path → text) of a generated graph: ``pages`` topic pages, journals
    for about 85 % of the ``days`` days up to 2026-11-27, and a few special pages."""
    gen = _Gen(seed, pages)
    files: dict[str, str] = {}
    for title in gen.titles:
        path, text = gen.page(title)
        files.setdefault(path, text)
    for offset in range(days):
        day = END - dt.timedelta(days=offset)
        if gen.rng.random() < 0.85:
            path, text = gen.journal(day)
            files.setdefault(path, text)
    # pages whose title is a date, and a namespace parent with its own file
    files["pages/retro-notes.md"] = f"title:: {journal_title(END + dt.timedelta(days=3))}\n\n" + (
        "\n".join(gen.bullets(3, 1.0, 0.1)) + "\n"
    )
    files[f"pages/{END + dt.timedelta(days=5):%Y_%m_%d}.md"] = "- named like a journal file\n"
    files["pages/Projects.md"] = "- every project\n"
    return files


def mldoc_journals(seed: int = 11, days: int = 60) -> dict[str, str]:
    """Journals written by the mldoc conformance generator (tests/outline_gen.py): every inline
    form and look-alike, properties anywhere (``title::`` among them: such a journal file is the
    page of that title), markers, schedules, code, #+BEGIN blocks, mixed and misaligned
    indentation, headings inside blocks."""
    from .outline_gen import logseq_page

    rng = random.Random(seed)
    start = dt.date(2026, 6, 1)
    return {
        journal_file(start + dt.timedelta(days=i)): logseq_page(rng).replace("\ufeff", "")
        for i in range(days)
    }
