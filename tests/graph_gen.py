"""Logseq file graphs for the graph-parser oracle test (tests/test_logseq_graph_oracle.py).

Three kinds, all pure functions of their arguments (the same seed always gives the same bytes):

* `CASES`: one small graph per construct where journal-agent's backlinks or journal days may part
  from Logseq's (namespaces and aliases, property keys, task markers and priorities, built-in
  pages, ``#+BEGIN_…`` blocks, org-mode pages, odd page-name spellings, YAML titles, date pages,
  journal file names, path-refs, tags). Each case says what Logseq does with it.
* `generate`: a seeded graph of a few hundred pages and journals that mixes all of those
  constructs with ordinary writing (nested bullets, references in every spelling, aliases,
  tags, properties, code), the way a real graph accumulates them.
* `mldoc_journals`: journals of the mldoc conformance generator, the oddest text people write.

`write_graph` writes either into a folder (the tests write only under their tmp_path).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from pathlib import Path

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
# one graph per case


@dataclass(frozen=True)
class Case:
    """A small graph and what Logseq does with it."""

    doc: str
    files: dict[str, str]


CASES: dict[str, Case] = {
    "namespace_alias": Case(
        "`[[Color swatch]]`, an alias of `Whiteboard/Action Bar/Color swatch`, refers to that page"
        " only, not to its namespace parents (Logseq adds parents from the name as written);"
        " `[[term/embedded page]]` refers to `term` (an alias of Glossary) and so shows under"
        " Glossary; `[[CS/algo]]`, an alias of Algorithms, also refers to `CS`.",
        {
            "pages/Whiteboard___Action Bar___Color swatch.md": (
                "alias:: Color swatch\n\n- The swatch of the action bar\n"
            ),
            "pages/Glossary.md": "alias:: term\n\n- Words we use\n",
            "pages/Algorithms.md": "alias:: CS/algo\n\n- Sorting and searching\n",
            "journals/2026_11_02.md": (
                "- picked a [[Color swatch]] for the toolbar\n"
                "- wrote [[term/embedded page]] down\n"
                "- studied [[CS/algo]] tonight\n"
                "- the whole [[Whiteboard/Action Bar/Color swatch]] path\n"
            ),
        },
    ),
    "property_keys": Case(
        "A block with `foo:: bar` refers to page `foo` (property keys are pages, built-in keys"
        " such as id, collapsed, title, alias and tags excepted); page properties make the"
        " page's first block refer to their keys.",
        {
            "pages/Reading.md": "type:: book\nrating:: 5\n\n- A page with properties\n",
            "journals/2026_11_03.md": (
                "- met the vendor\n"
                "  foo:: bar\n"
                "  collapsed:: true\n"
                "- shipped it\n"
                "  project:: [[Reading]]\n"
                "  id:: 6512c3b8-1d0f-4e3a-9a4b-2c1d5e6f7a8b\n"
            ),
        },
    ),
    "task_markers": Case(
        "Task markers (TODO, DOING, DONE, NOW, LATER, WAITING, CANCELED …) and priorities"
        " (`[#A]`) are pages the block refers to; they are built-in pages.",
        {
            "journals/2026_11_04.md": (
                "- TODO write the report\n"
                "- DONE shipped the fix\n"
                "- NOW reviewing\n"
                "- LATER call back\n"
                "- WAITING on legal\n"
                "- CANCELED the trip\n"
                "- [#A] urgent thing\n"
                "- TODO [#B] less urgent\n"
                "- IN-PROGRESS migrating\n"
            ),
        },
    ),
    "builtin_pages": Case(
        "Built-in pages (Contents, Favorites, card, the markers, A/B/C) exist in every graph;"
        " `pages/contents.md` is the Contents page.",
        {
            "pages/contents.md": "- [[Reading]]\n",
            "pages/Reading.md": "- books\n",
            "journals/2026_11_05.md": (
                "- added to [[Favorites]]\n- a flash #card\n- see [[Contents]]\n- grade [[A]]\n"
            ),
        },
    ),
    "begin_blocks": Case(
        "`#+BEGIN_QUERY/EXAMPLE/SRC` content carries no references; `- ` lines inside"
        " `#+BEGIN_EXAMPLE`/`#+BEGIN_QUOTE` are not blocks; `#+BEGIN_NOTE` on a continuation"
        " line is not a tag (its content does refer).",
        {
            "pages/Reading.md": "- books\n",
            "journals/2026_11_06.md": (
                "- a query\n"
                "  #+BEGIN_QUERY\n"
                "  {:query [:find ?b :where [?b :block/refs [[Reading]]]]}\n"
                "  #+END_QUERY\n"
                "- an example\n"
                "  #+BEGIN_EXAMPLE\n"
                "  - [[Example Topic]] inside\n"
                "  #+END_EXAMPLE\n"
                "- some source\n"
                "  #+BEGIN_SRC clojure\n"
                "  (def x [[Src Topic]])\n"
                "  #+END_SRC\n"
                "- a quote\n"
                "  #+BEGIN_QUOTE\n"
                "  - [[Quote Topic]] said so\n"
                "  #+END_QUOTE\n"
                "- a note\n"
                "  #+BEGIN_NOTE\n"
                "  about [[Note Topic]]\n"
                "  #+END_NOTE\n"
                "- after them [[Reading]]\n"
            ),
        },
    ),
    "alias_is_a_page": Case(
        "An alias that is also a page: `Projects` is an alias of Work and the namespace parent of"
        " `Projects/Website` (an empty page: opening it shows Work); `ML` is an alias of"
        " Machine Learning and a page with its own file (opening it shows ML itself, with the"
        " references of both).",
        {
            "pages/Work.md": "alias:: Projects\n\n- Everything for the job\n",
            "pages/Projects___Website.md": "- The new site\n",
            "pages/Machine Learning.md": "alias:: ML\n\n- Models\n",
            "pages/ML.md": "- my own ML notes\n- links [[Machine Learning]]\n",
            "journals/2026_11_07.md": (
                "- launched [[Projects/Website]]\n"
                "- all [[Projects]] reviewed\n"
                "- read about [[ML]]\n"
                "- and [[Machine Learning]] again\n"
            ),
        },
    ),
    "org_pages": Case(
        "Org-mode pages (`.org`) have blocks (`*` headlines), references (`[[X]]`, `#tag`),"
        " a `#+TITLE:` and journal days (journals/yyyy_MM_dd.org).",
        {
            "pages/Org Topic.org": (
                "#+TITLE: Org Topic Title\n\n"
                "* A headline about [[Reading]]\n"
                "** TODO a child task\n"
                "* Another about #Writing\n"
            ),
            "pages/Reading.md": "- books\n",
            "journals/2026_11_08.org": "* met about [[Org Topic Title]]\n** DONE settled it\n",
            "journals/2026_11_09.md": "- read [[Org Topic Title]]\n",
        },
    ),
    "name_spellings": Case(
        "`[[X ]]` and `[[X]]` are different pages; `[[/X/]]` is X; `{{embed [[X]]}}` and"
        " `{{{embed [[X]]}}}` refer to X; names are case-insensitive.",
        {
            "pages/Topic.md": "- the topic\n",
            "journals/2026_11_10.md": (
                "- spaced [[Topic ]] link\n"
                "- slashed [[/Topic/]] link\n"
                "- embedded {{embed [[Topic]]}}\n"
                "- triple {{{embed [[Topic]]}}}\n"
                "- lower [[topic]]\n"
            ),
        },
    ),
    "yaml_title": Case(
        "YAML front matter `title:` names the page (and `alias:` gives it aliases).",
        {
            "pages/yaml-page.md": (
                "---\ntitle: YAML Titled\nalias: YT\n---\n\n- body about [[Reading]]\n"
            ),
            "pages/Reading.md": "- books\n",
            "journals/2026_11_11.md": "- read [[YAML Titled]]\n- and [[YT]]\n- not [[yaml-page]]\n",
        },
    ),
    "date_pages": Case(
        "Logseq makes a page a journal by its *name*: a date-titled page that exists only by"
        " reference (`[[Oct 30th, 2026]]`, `[[2026-10-29]]` which it renames to `Oct 29th,"
        " 2026`), a file whose `title::` is a date, a file in pages/ named like a journal file.",
        {
            "pages/standup.md": "title:: Nov 3rd, 2026\n\n- stand-up notes about [[Reading]]\n",
            "pages/2026_11_07.md": "- a page file named like a journal\n",
            "pages/Reading.md": "- books\n",
            "journals/2026_11_12.md": (
                "- follow-up of [[Oct 30th, 2026]]\n"
                "- and of [[2026-10-29]]\n"
                "- see [[Nov 3rd, 2026]]\n"
                "- see [[Nov 7th, 2026]]\n"
            ),
        },
    ),
    "journal_file_names": Case(
        "Files in journals/ whose names do not follow `yyyy_MM_dd`: Logseq titles a page by"
        " its file name and makes it a journal if that title parses with the title format,"
        " `yyyy-MM-dd` or `yyyy_MM_dd`.",
        {
            "pages/Reading.md": "- books\n",
            "journals/2026-10-21.md": "- dashes [[Reading]]\n",
            "journals/20261022.md": "- compact [[Reading]]\n",
            "journals/2026_1_5.md": "- short [[Reading]]\n",
            "journals/weekly review.md": "- not a date [[Reading]]\n",
            "journals/2026_10_23.md": "- normal [[Reading]]\n",
        },
    ),
    "path_refs": Case(
        "Path-refs: a block nested under a block that refers to X is part of X's references"
        " (a DONE child resolves X); siblings are not; a Markdown heading without a bullet is a"
        " top-level block, so the bullets after it are its siblings.",
        {
            "pages/Topic.md": "- the topic\n",
            "journals/2026_11_13.md": (
                "- about [[Topic]]\n"
                "\t- DONE fixed it\n"
                "\t\t- deeper still\n"
                "- a sibling\n"
                "# Heading on [[Topic]]\n"
                "- after the heading\n"
                "\t- under it\n"
            ),
        },
    ),
    "tags_and_properties": Case(
        "`tags::` and `alias::` page properties, comma-separated properties (people::, from the"
        " config) and property values with references; `#tag`, `#[[a tag]]`, `[label]([[X]])`.",
        {
            "pages/Reading.md": "tags:: [[Books]], Learning\n\n- books\n",
            "pages/Books.md": "- all of them\n",
            "pages/Dana.md": "- a person\n",
            "journals/2026_11_14.md": (
                "- lunch\n"
                "  people:: Dana, Omar\n"
                "- plan #Books and #[[Deep Work]]\n"
                "- see [the list]([[Reading]])\n"
                "- **bold [[Books]]**\n"
            ),
        },
    ),
    "comma_in_brackets": Case(
        "A comma inside `[[…]]` in a comma-separated property (`alias::`, `tags::`) is part of"
        " the name: `alias:: [[Smith, John]]` is one alias, `tags:: [[Dallas, TX]]` one tag.",
        {
            "pages/Contacts.md": "alias:: [[Smith, John]]\n\n- contact card\n",
            "pages/Trip.md": "tags:: [[Dallas, TX]], travel\n\n- trip notes\n",
            "journals/2026_11_16.md": (
                "- call [[Smith, John]]\n- lunch\n  tags:: [[Doe, Jane]], #[[A, B]]\n"
            ),
        },
    ),
    "first_line_properties": Case(
        "A bullet whose first line (after a task marker or priority) is `key:: value` holds"
        " properties, not text: `- project:: [[Apollo]]` refers to `project` and Apollo (its"
        " children inherit them), `- tags:: Rocket, Space` to both tags; a key with a colon"
        " makes no property (`- a::b:: [[AB]]` is text that links AB); `- alias:: X` as a"
        " page's first bullet is a block property, no alias of the page.",
        {
            "pages/Apollo.md": "- alias:: Moonshot\n- the project page\n",
            "journals/2026_11_17.md": (
                "- project:: [[Apollo]]\n"
                "\t- kickoff notes\n"
                "- tags:: Rocket, Space\n"
                "- TODO owner:: [[Dana]]\n"
                "- [#A] status:: open\n"
                "- a::b:: [[AB]]\n"
                "- see [[Moonshot]]\n"
            ),
        },
    ),
    "late_page_properties": Case(
        "A page's properties are its first property drawer before the first block, after blank"
        " or text lines too (`alias::` after an empty first line makes an alias); but a"
        " `title::` renames the page only in a drawer that opens the page.",
        {
            "pages/P1.md": "\nalias:: A1\n\n- body\n",
            "pages/P2.md": "text [[R2]]\nalias:: A2\ntags:: T2\n- body\n",
            "pages/P3.md": "\n\ntitle:: T3\nalias:: A3\n- body\n",
            "pages/P4.md": "alias:: A4\n\nalias:: B4\n- body\n",
            "journals/2026_11_18.md": (
                "- [[A1]]\n- [[A2]]\n- [[A3]]\n- [[T3]]\n- [[A4]]\n- [[B4]]\n- [[T2]]\n"
            ),
        },
    ),
    "drawers": Case(
        "A drawer (`:LOGBOOK:` … `:END:`, any name) holds no references, and runs to the next"
        " `:END:` line, the bullets between included; a `:PROPERTIES:` drawer of `:key: value`"
        " lines holds the block's properties (its keys are pages too).",
        {
            "journals/2026_11_19.md": (
                "- timer\n"
                "  :LOGBOOK:\n"
                "  CLOCK: [2026-11-19 Thu 09:00] [[Billing]]\n"
                "  :END:\n"
                "- standup\n"
                "  :PROPERTIES:\n"
                "  :owner: [[Dana]]\n"
                "  :END:\n"
                "- open drawer\n"
                "  :NOTES:\n"
                "- swallowed [[Hidden]]\n"
                "  :END:\n"
                "- after [[Seen]]\n"
            ),
        },
    ),
    "self_and_alias_pages": Case(
        "A page's references to itself do not count; blocks on an alias page count for the"
        " real page only where they or an ancestor refer to it.",
        {
            "pages/Topic.md": "alias:: TP\n\n- about [[Topic]] itself\n- and [[TP]]\n",
            "pages/TP.md": "- alias page body\n- refers to [[Topic]]\n\t- child of it\n",
            "journals/2026_11_15.md": "- [[TP]] from a journal\n",
        },
    ),
}


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
