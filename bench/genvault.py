#!/usr/bin/env python3
"""Generate a deterministic, realistic Logseq file graph for the benchmarks.

    python bench/genvault.py OUT --pages 20000 --years 5 [--seed 1] [--end 2026-11-29]

Writes ``OUT/logseq/config.edn``, ``OUT/pages/*.md`` (titles from a word list; some namespaced
``A/B`` stored as ``A___B.md``; some with ``alias::``, ``tags::`` or ``title::``) and
``OUT/journals/yyyy_MM_dd.md`` for ~85% of the days of the last ``--years`` years. Links are drawn
with a Zipf-like popularity: a few topics are hot (`HOT_TOPIC` is the hottest), most are rarely
mentioned. Pure stdlib; the same arguments always give the same bytes.
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import random
import sys
from pathlib import Path

#: The most popular page; the benchmark greps for ``[[HOT_TOPIC]]``.
HOT_TOPIC = "Atlas Migration"
CONFIG_EDN = (
    '{:journal/page-title-format "MMM do, yyyy"\n'
    ' :journal/file-name-format "yyyy_MM_dd"\n'
    " :file/name-format :triple-lowbar}\n"
)
NAMESPACES = ["Projects", "People", "Areas", "Meetings", "Reading", "Clients", "Team"]
MARKERS = ["TODO", "DONE", "LATER", "NOW", "DOING", "CANCELED", "WAITING"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
FIRST = [
    "Dana",
    "Omar",
    "Priya",
    "Lena",
    "Jonas",
    "Mei",
    "Tomás",
    "Aisha",
    "Kenji",
    "Sofia",
    "Ravi",
    "Ingrid",
    "Malik",
    "Chloé",
    "Yusuf",
]
LAST = [
    "Ruiz",
    "Haddad",
    "Nair",
    "Berg",
    "Okafor",
    "Novak",
    "Müller",
    "Tanaka",
    "Silva",
    "Kowalski",
    "Dubois",
    "Chen",
    "Ortiz",
]
_WORDS = """
atlas migration cluster backup grafana latency flaky test harness redis worker queue schema
drift rollback snapshot runbook deploy canary release pipeline build cache index search
parser outline journal page block link tag alias namespace graph sync conflict merge branch
review design doc meeting notes budget roadmap quarter planning hiring interview onboarding
mentor feedback retro incident postmortem alert pager oncall dashboard metric trace span log
storage bucket disk volume network proxy gateway router dns certificate token secret vault
auth login session cookie browser mobile android ios desktop widget layout theme color font
garden kitchen recipe coffee tea bread running cycling swimming yoga sleep health doctor
dentist insurance taxes invoice contract client vendor supplier shipping order payment refund
travel flight hotel train visa passport museum concert movie book novel essay poem podcast
lecture course exam thesis paper draft outline chapter edit publish blog newsletter email
calendar reminder habit goal review weekly monthly yearly inbox archive project area resource
python rust golang kotlin swift typescript postgres sqlite kafka spark airflow terraform
kubernetes docker nginx linux kernel compiler debugger profiler benchmark regression
memory leak thread lock mutex deadlock timeout retry backoff throttle quota limit shard
replica leader follower consensus raft paxos ledger audit compliance privacy security
café naïve zürich résumé façade piñata smörgåsbord déjà jalapeño crème brûlée
"""
WORDS = _WORDS.split()


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th`` … as Logseq's ``do`` token writes a day."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def journal_title(day: dt.date) -> str:
    """The journal page title under ``MMM do, yyyy``."""
    return f"{MONTHS[day.month - 1]} {ordinal(day.day)}, {day.year}"


def file_name(title: str) -> str:
    """The ``:triple-lowbar`` file name (without ``.md``) of a page title."""
    return title.replace(":", "%3A").replace("?", "%3F").replace("/", "___")


class Gen:
    """Holds the random source, the page titles and their popularity."""

    def __init__(self, pages: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.titles = self._titles(pages)
        # Popularity rank: the hot topic first, the rest in random order; weight 1 / rank.
        ranked = self.titles[1:]
        self.rng.shuffle(ranked)
        self.ranked = [HOT_TOPIC, *ranked]
        self.cum = list(itertools.accumulate(1.0 / (r + 1) for r in range(len(self.ranked))))

    def _titles(self, n: int) -> list[str]:
        rng = self.rng
        out = [HOT_TOPIC, *NAMESPACES][:n]
        seen = {t.lower() for t in out}
        while len(out) < n:
            r = rng.random()
            if r < 0.05:
                title = f"{rng.choice(FIRST)} {rng.choice(LAST)}"
                title += "" if title.lower() not in seen else f" {rng.randint(2, 99)}"
            else:
                words = [w.capitalize() for w in rng.sample(WORDS, rng.choice((1, 2, 2, 2, 3)))]
                title = " ".join(words)
                if r < 0.06:  # a name a file cannot hold as is: Logseq keeps it in title::
                    title = f"Q{rng.randint(1, 4)} {rng.randint(2019, 2026)}: {title}"
            if r > 0.93:
                parent = rng.choice(NAMESPACES)
                title = f"{parent}/{title}" if r < 0.99 else f"{parent}/{rng.choice(out)}/{title}"
            if title.lower() not in seen:
                seen.add(title.lower())
                out.append(title)
        return out

    # -- text -------------------------------------------------------------------------------

    def topics(self, k: int) -> list[str]:
        """``k`` page titles drawn by popularity."""
        return self.rng.choices(self.ranked, cum_weights=self.cum, k=k)

    def ref(self, title: str) -> str:
        """A reference to ``title`` in one of Logseq's spellings."""
        r = self.rng.random()
        if r < 0.08:
            title = title.lower()
        if r < 0.25 and all(c.isalnum() or c in "/-_" for c in title):
            return "#" + title
        if r < 0.35 and " " in title:
            return f"#[[{title}]]"
        return f"[[{title}]]"

    def sentence(self, words: tuple[int, int], refs: float) -> str:
        """A line of filler words with on average ``refs`` page references mixed in."""
        rng = self.rng
        parts = rng.choices(WORDS, k=rng.randint(*words))
        nrefs = int(refs) + (rng.random() < refs - int(refs))
        for title in self.topics(nrefs):
            parts.insert(rng.randint(0, len(parts)), self.ref(title))
        if rng.random() < 0.06:
            parts.insert(
                rng.randint(0, len(parts)),
                rng.choice(["`grep -c '[[x]]' log`", "`arr[[0]]`", "`#define`", "`{{query}}`"]),
            )
        parts[0] = parts[0].capitalize()
        return " ".join(parts)

    def code_block(self, pad: str) -> list[str]:
        """A fenced code block with brackets and hashes inside (never references)."""
        body = ["```python", "rows = table[[0]]  # [[Not A Link]]", 'print("#tag [[x]]")', "```"]
        return [pad + line for line in body]

    def bullets(self, n: int, words: tuple[int, int], refs: float, tasks: float) -> list[str]:
        """``n`` bullets with tab nesting, task markers, properties and code."""
        rng = self.rng
        lines: list[str] = []
        depth = 0
        for i in range(n):
            depth = 0 if i == 0 else max(0, min(depth + rng.choice((-1, 0, 0, 1)), 3))
            indent = "\t" * depth
            marker = rng.choice(MARKERS) + " " if rng.random() < tasks else ""
            lines.append(f"{indent}- {marker}{self.sentence(words, refs)}")
            pad = indent + "  "
            r = rng.random()
            if r < 0.03:
                lines.append(f"{pad}collapsed:: true")
            elif r < 0.06:
                lines.append(f"{pad}id:: {_uuid(rng)}")
            elif r < 0.08:
                lines.append(f"{pad}project:: [[{self.topics(1)[0]}]]")
            elif r < 0.11:
                lines.append(pad + self.sentence((5, 12), 0.3))
            elif r < 0.13:
                lines.extend(self.code_block(pad))
        return lines

    # -- files ------------------------------------------------------------------------------

    def page(self, title: str, index: int, aliases: set[str]) -> str:
        """The text of one page file."""
        rng = self.rng
        props: list[str] = []
        if ":" in title or "?" in title:
            props.append(f"title:: {title}")
        r = rng.random()
        if r < 0.05:
            alias = "".join(w[0] for w in title.replace("/", " ").split()).upper() + str(index)
            if alias.lower() not in aliases:
                aliases.add(alias.lower())
                props.append(f"alias:: {alias}")
        if rng.random() < 0.15:
            tags = ", ".join(f"[[{t}]]" for t in dict.fromkeys(self.topics(rng.randint(1, 3))))
            props.append(f"tags:: {tags}")
        if rng.random() < 0.05:
            props.append(f"type:: {rng.choice(['project', 'person', 'book', 'note'])}")
        n = min(int(rng.lognormvariate(1.4, 0.8)) + 1, 60)
        body = self.bullets(n, (4, 12), 0.45, 0.05)
        lines = props + ([""] if props else []) + body
        return "\n".join(lines) + "\n"

    def journal(self, day: dt.date) -> str:
        """The text of one journal file."""
        rng = self.rng
        lines = self.bullets(rng.randint(3, 15), (4, 14), 0.8, 0.2)
        if rng.random() < 0.05:
            back = day - dt.timedelta(days=rng.randint(1, 30))
            lines.insert(rng.randint(0, len(lines)), f"- Follow-up of [[{journal_title(back)}]]")
        if rng.random() < 0.3:
            lines.insert(
                rng.randint(0, len(lines)) if rng.random() < 0.2 else len(lines), "- claude log"
            )
            at = lines.index("- claude log") + 1
            kids = [f"\t- {self.sentence((6, 16), 1.0)}" for _ in range(rng.randint(1, 5))]
            lines[at:at] = kids
        return "\n".join(lines) + "\n"


def _uuid(rng: random.Random) -> str:
    h = f"{rng.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def generate(
    out: Path, pages: int, years: int, seed: int = 1, end: dt.date = dt.date(2026, 11, 29)
) -> tuple[int, int]:
    """Write the vault into ``out`` (which should be empty); return ``(files, bytes)``."""
    gen = Gen(pages, seed)
    (out / "logseq").mkdir(parents=True, exist_ok=True)
    (out / "pages").mkdir(exist_ok=True)
    (out / "journals").mkdir(exist_ok=True)
    files: list[tuple[Path, str]] = [(out / "logseq" / "config.edn", CONFIG_EDN)]
    aliases: set[str] = set()
    for i, title in enumerate(gen.titles):
        files.append((out / "pages" / (file_name(title) + ".md"), gen.page(title, i, aliases)))
    start = end - dt.timedelta(days=round(365.25 * years) - 1)
    for offset in range((end - start).days + 1):
        day = start + dt.timedelta(days=offset)
        if gen.rng.random() < 0.85:
            files.append((out / "journals" / f"{day:%Y_%m_%d}.md", gen.journal(day)))
    total = 0
    for path, text in files:
        data = text.encode("utf-8")
        path.write_bytes(data)
        total += len(data)
    return len(files), total


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("out", type=Path)
    ap.add_argument("--pages", type=int, default=20000)
    ap.add_argument("--years", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--end", type=dt.date.fromisoformat, default=dt.date(2026, 11, 29))
    args = ap.parse_args(argv)
    files, total = generate(args.out, args.pages, args.years, args.seed, args.end)
    print(f"{files} files, {total} bytes ({total / 1e6:.1f} MB) in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
