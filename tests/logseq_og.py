"""Logseq's own graph parser (logseq/og 0.10.15, file graphs) as a test oracle.

The oracle lives outside the repository, at ``<repo root>/../shared/oracles/logseq-og`` (that is
where CI has it); its ``run GRAPH_DIR OUT.json`` parses a graph folder with Logseq's
``deps/graph-parser`` under nbb-logseq and dumps every page and block of the resulting database
(its first run installs two npm packages into ``~/.cache/logseq-og-oracle``). Tests that need it
call `require_oracle`, which skips them when the folder is absent.

`run_oracle` copies the graph into a work folder (the oracle never sees, and so never writes
into, the original), runs it and loads the dump into a `LogseqGraph`, which answers what
Logseq's UI shows:

* `LogseqGraph.linked_references`: a page's Linked References, as the app computes them
  (``frontend/db/model.cljs`` ``get-page-referenced-blocks-full`` and
  ``frontend/components/reference.cljs`` ``references*`` in logseq/logseq 0.10.x): the blocks
  whose ``:block/path-refs`` contain the page or one of its aliases (``page-alias-set``, the
  ``:alias`` rules of ``deps/db/src/logseq/db/rules.cljc``), minus the page's own blocks, shown
  only where the block or an ancestor refers to one of them directly (``:block/refs``): the
  "top-level" blocks and their descendants.
* `LogseqGraph.redirect`: opening an alias page that has no blocks shows the page that declares
  the alias (``get-redirect-page-name``: ``page-empty-or-dummy?`` then
  ``get-alias-source-page``).
* `OPage.journal_day`: the page's journal day (Logseq decides it from the page *name*:
  ``block.cljs`` ``convert-page-if-journal``).

Blocks carry no line numbers in Logseq's database. They are mapped to lines by page file and
document order (the ``:block/parent`` / ``:block/left`` chain): each block's content (Logseq keeps
the block's text minus its bullet) is matched, in order, against the first later line of the file
that starts a block and reads the same, and the next block cannot start before the lines the
previous block's content spans. A block that cannot be placed raises `OracleError`: the mapping,
not the product, is then at fault.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import subprocess
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
ORACLE_DIR = ROOT.parent / "shared" / "oracles" / "logseq-og"
RUN_TIMEOUT = 900  # seconds; the first run also installs the oracle's npm packages

#: Extensions Logseq's graph parser reads as pages (``gp-config/mldoc-support-formats``).
PAGE_EXTENSIONS = (".md", ".markdown", ".org")


class OracleError(RuntimeError):
    """The oracle failed, or its dump cannot be mapped onto the graph's files."""


def oracle_dir() -> Path | None:
    """The oracle's folder, or None when this checkout has none beside it."""
    return ORACLE_DIR if (ORACLE_DIR / "run").is_file() else None


def require_oracle() -> Path:
    """The oracle's folder; skips the calling test when it is absent."""
    found = oracle_dir()
    if found is None:
        pytest.skip(f"Logseq graph-parser oracle not found at {ORACLE_DIR}")
    if shutil.which("node") is None:
        pytest.skip("Logseq graph-parser oracle needs node on PATH")
    return found


@dataclass(frozen=True)
class OPage:
    """One page of Logseq's database."""

    id: int
    name: str  # :block/name, lower-cased
    original: str  # :block/original-name
    journal_day: dt.date | None
    file: str | None  # relative to the graph root
    alias: tuple[int, ...]


@dataclass
class OBlock:
    """One block of Logseq's database, placed on a line of its page file."""

    id: int
    page: int
    parent: int
    left: int
    content: str
    pre: bool
    marker: str | None
    refs: frozenset[int]
    path_refs: frozenset[int]
    file: str | None = None
    line: int = -1


@dataclass
class LogseqGraph:
    """What Logseq's database holds for one graph, with the UI's derived views."""

    root: Path
    pages: dict[int, OPage]
    blocks: dict[int, OBlock]
    by_name: dict[str, OPage] = field(default_factory=dict)
    stderr: str = ""

    def __post_init__(self) -> None:
        self.by_name = {p.name: p for p in self.pages.values()}
        self._children: dict[int, list[int]] = {}
        for b in self.blocks.values():
            self._children.setdefault(b.parent, []).append(b.id)
        self._on_page: dict[int, list[OBlock]] = {}
        for b in self.blocks.values():
            self._on_page.setdefault(b.page, []).append(b)
        _place_blocks(self)

    # -- pages ---------------------------------------------------------------------------------

    def page(self, name: str) -> OPage | None:
        """The page called ``name`` (any case), as Logseq looks names up."""
        return self.by_name.get(og_name(name))

    def alias_set(self, page: int) -> set[int]:
        """The page and its aliases: ``page-alias-set``, i.e. the four ``:alias`` rules of
        ``deps/db/src/logseq/db/rules.cljc`` (direct either way, or through one page)."""
        out = {page}
        mine = set(self.pages[page].alias)
        out |= mine
        for other in self.pages.values():
            if page in other.alias:
                out.add(other.id)  # [?e1 :block/alias ?page]
            if page in {a for x in other.alias for a in self.pages[x].alias}:
                out.add(other.id)  # [?e1 :block/alias ?x] [?x :block/alias ?page]
        for x in mine:
            out |= set(self.pages[x].alias)  # [?page :block/alias ?x] [?x :block/alias ?e3]
        return out

    def redirect(self, page: int) -> int:
        """The page the app shows when ``page`` is opened: an empty alias page shows the page
        that declares the alias (``get-redirect-page-name``)."""
        blocks = self._on_page.get(page, [])
        empty = not any(b.left == page for b in blocks)
        dummy = len(blocks) == 1 and blocks[0].content == ""
        if not (empty or dummy):
            return page
        name = self.pages[page].name
        sources = [
            p
            for p in self.pages.values()
            if page in p.alias and p.file is not None and p.id != page
        ]
        # get-alias-source-page keeps the pages whose own alias:: property names this one (the
        # dump has no page properties: read the property line of the page's first block).
        declared = [p for p in sources if name in self._declared_aliases(p.id)]
        found = sorted(declared or sources, key=lambda p: p.name)
        return found[0].id if found else page

    def _declared_aliases(self, page: int) -> set[str]:
        pre = [b for b in self._on_page.get(page, []) if b.pre]
        names: set[str] = set()
        for b in pre:
            for line in b.content.split("\n"):
                m = re.match(r"\s*(?:#\+)?alias(?:::|:)\s*(.*)$", line, re.I)
                if m:
                    for item in re.split(r"[,，]", m.group(1)):
                        item = item.strip().removeprefix("#").strip()
                        if item.startswith("[[") and item.endswith("]]"):
                            item = item[2:-2]
                        if item:
                            names.add(og_name(item))
        return names

    # -- references ----------------------------------------------------------------------------

    def linked_reference_blocks(self, page: int) -> list[OBlock]:
        """The blocks of ``page``'s Linked References (``page`` itself, no redirect)."""
        targets = self.alias_set(page)
        candidates = {
            b.id: b
            for b in self.blocks.values()
            if b.path_refs & targets and b.page != page  # get-page-referenced-blocks-full
        }
        shown: dict[int, bool] = {}

        def is_shown(b: OBlock) -> bool:  # a top-level block (direct ref) or inside one
            if b.id not in shown:
                parent = candidates.get(b.parent)
                shown[b.id] = bool(b.refs & targets) or (parent is not None and is_shown(parent))
            return shown[b.id]

        return sorted(
            (b for b in candidates.values() if is_shown(b)), key=lambda b: (b.file or "", b.line)
        )

    def linked_references(self, page: int) -> set[tuple[str, int]]:
        """``page``'s Linked References as (file, line) pairs."""
        out = set()
        for b in self.linked_reference_blocks(page):
            if b.file is None:
                raise OracleError(f"block {b.id} ({b.content[:60]!r}) has no file")
            out.add((b.file, b.line))
        return out

    def block_at(self, file: str, line: int) -> OBlock | None:
        """The block that starts on ``line`` of ``file``."""
        if not hasattr(self, "_at"):
            self._at = {(b.file, b.line): b for b in self.blocks.values() if b.file is not None}
        return self._at.get((file, line))

    def names(self, ids: Iterable[int]) -> list[str]:
        """Page names of ids (block refs, which point to blocks, shown as ``((id))``)."""
        return sorted(self.pages[i].original if i in self.pages else f"(({i}))" for i in ids)


def og_name(name: str) -> str:
    """``:block/name`` of a page name (``gp-util/page-name-sanity-lc``): lower-cased, one
    leading and one trailing ``/`` dropped, NFC; no other trimming."""
    s = name.lower()
    if s.startswith("/"):
        s = s[1:]
    if s.endswith("/"):
        s = s[:-1]
    return unicodedata.normalize("NFC", s)


# ---------------------------------------------------------------------------------------------
# running


def run_oracle(graph: Path, work: Path) -> LogseqGraph:
    """Copy ``graph`` into ``work`` (which must not exist yet), run the oracle there and load its
    dump. Everything it writes stays under ``work`` (and its npm cache)."""
    oracle = require_oracle()
    copy = work / "graph"
    shutil.copytree(graph, copy, symlinks=True)
    out = work / "oracle.json"
    try:
        proc = subprocess.run(
            [str(oracle / "run"), str(copy), str(out)],
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=RUN_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise OracleError(f"the Logseq oracle took over {RUN_TIMEOUT} s on {graph}") from exc
    if proc.returncode != 0 or not out.is_file():
        raise OracleError(
            f"the Logseq oracle failed on {graph} (exit {proc.returncode}):\n"
            f"{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
        )
    return load_dump(copy, json.loads(out.read_text(encoding="utf-8")), proc.stderr)


def load_dump(root: Path, data: dict[str, Any], stderr: str = "") -> LogseqGraph:
    """A `LogseqGraph` of the oracle's JSON for the graph folder ``root`` (its files are read to
    place the blocks on lines)."""
    pages: dict[int, OPage] = {}
    for p in data["pages"]:
        day = p.get("journal_day")
        pages[p["id"]] = OPage(
            id=p["id"],
            name=p["name"],
            original=p.get("original") or p["name"],
            journal_day=_day(day) if isinstance(day, int) else None,
            file=p.get("file") or None,
            alias=tuple(p.get("alias") or ()),
        )
    blocks: dict[int, OBlock] = {}
    for b in data["blocks"]:
        blocks[b["id"]] = OBlock(
            id=b["id"],
            page=b["page"],
            parent=b["parent"],
            left=b["left"],
            content=b.get("content") or "",
            pre=bool(b.get("pre")),
            marker=b.get("marker") or None,
            refs=frozenset(b.get("refs") or ()),
            path_refs=frozenset(b.get("path_refs") or ()),
        )
    return LogseqGraph(root, pages, blocks, stderr=stderr)


def _day(value: int) -> dt.date:
    return dt.date(value // 10000, value // 100 % 100, value % 100)


# ---------------------------------------------------------------------------------------------
# placing blocks on lines


def graph_files(root: Path) -> list[str]:
    """The page files Logseq's parser reads below ``root`` (``common-graph/get-files``: no
    hidden paths, nothing under ``logseq/`` such as its backups), relative, sorted."""
    out = []
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts) or rel.parts[0] == "logseq":
            continue
        if path.is_file() and path.suffix.lower() in PAGE_EXTENSIONS:
            out.append(rel.as_posix())
    return sorted(out)


def _place_blocks(graph: LogseqGraph) -> None:
    """Give every block its file and first line (see the module docstring)."""
    claimed = {p.file for p in graph.pages.values() if p.file}
    unclaimed = [f for f in graph_files(graph.root) if f not in claimed]
    texts: dict[str, list[str]] = {}

    def lines_of(rel: str) -> list[str]:
        if rel not in texts:
            text = (graph.root / rel).read_bytes().decode("utf-8", "replace")
            texts[rel] = [ln.removesuffix("\r") for ln in text.split("\n")]
        return texts[rel]

    for page_id, blocks in graph._on_page.items():
        page = graph.pages[page_id]
        by_left = {(b.parent, b.left): b for b in blocks}
        # A page several files define (two file names, one title) holds one chain per file.
        heads = [b for b in blocks if b.parent == page_id and b.left == page_id]
        candidates = ([page.file] if page.file else []) + unclaimed
        for head in heads:
            chain = _document_order(head, by_left)
            for rel in candidates:
                if _place_chain(chain, rel, lines_of(rel)):
                    if rel in unclaimed:
                        unclaimed.remove(rel)
                    break
            else:
                where = page.file or "no file"
                first = chain[0].content.split("\n")[0][:80]
                raise OracleError(
                    f"cannot place the blocks of page {page.original!r} ({where}) on lines: "
                    f"first block {first!r}"
                )


def _document_order(head: OBlock, by_left: dict[tuple[int, int], OBlock]) -> list[OBlock]:
    """``head``, its following siblings, and all their descendants, in document order."""
    out: list[OBlock] = []
    stack: list[OBlock] = []
    node: OBlock | None = head
    while node is not None or stack:
        if node is None:
            node = stack.pop()
            continue
        out.append(node)
        sibling = by_left.get((node.parent, node.id))
        child = by_left.get((node.id, node.id))
        if sibling is not None:
            stack.append(sibling)
        node = child
    return out


_MD_BULLET = re.compile(r"^-+\s?")
_ORG_BULLET = re.compile(r"^\*+\s?")


def _empty_bullet_then(text: str, after: list[str], first: str, bullet: re.Pattern[str]) -> bool:
    """A bullet with no text of its own whose block content starts with the next line (Logseq
    keeps an empty first line's block as its property lines, indentation and all)."""
    return (
        not bullet.sub("", text, count=1).strip()
        and bool(after)
        and bool(first.strip())
        and after[0].strip() == first.strip()
    )


def _place_chain(chain: list[OBlock], rel: str, lines: list[str]) -> bool:
    """Place each block of ``chain`` (document order) on a line of ``lines``; False if they do
    not fit this file."""
    org = rel.lower().endswith(".org")
    bullet = _ORG_BULLET if org else _MD_BULLET
    starts = "*" if org else ("-", "#")
    cursor = 0
    placed: list[tuple[OBlock, int]] = []
    for block in chain:
        content = [ln.removesuffix("\r") for ln in block.content.split("\n")]
        while content and not content[-1].strip():
            content.pop()
        if block.pre:
            if cursor != 0:
                return False
            line = 0
        else:
            first = content[0].rstrip() if content else ""
            line = -1
            for j in range(cursor, len(lines)):
                text = lines[j].lstrip(" \t")
                if text.startswith(starts) and (
                    text.rstrip() == first
                    or bullet.sub("", text, count=1).rstrip() == first
                    or _empty_bullet_then(text, lines[j + 1 : j + 2], first, bullet)
                ):
                    line = j
                    break
            if line < 0:
                return False
        placed.append((block, line))
        cursor = line + max(1, len(content))
    for block, line in placed:
        block.file, block.line = rel, line
    return True
