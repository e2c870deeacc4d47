"""What Logseq (file graphs, 0.10.x) has built in: pages every graph holds, and properties it
keeps for itself.

Why here: the scanner (which property values are references), the page facts (which property
keys make pages) and the registry (which pages exist without a file) must agree on these lists,
and they are Logseq's, word for word. Sources in logseq/og 0.10.15: ``deps/db/src/logseq/db/
default.cljs`` (``built-in-markers``, ``built-in-priorities``, ``built-in-pages-names``) and
``deps/graph-parser/src/logseq/graph_parser/property.cljs`` (``editable-built-in-properties``,
``hidden-built-in-properties``, ``editable-linkable-built-in-properties``).
"""

from __future__ import annotations

from .patterns import regex

#: Task markers and priorities Logseq creates as pages in every graph.
BUILT_IN_MARKERS = (
    "NOW",
    "LATER",
    "DOING",
    "DONE",
    "CANCELED",
    "CANCELLED",
    "IN-PROGRESS",
    "TODO",
    "WAIT",
    "WAITING",
)
BUILT_IN_PRIORITIES = ("A", "B", "C")
#: Every built-in page, as Logseq spells it.
BUILT_IN_PAGES = (*BUILT_IN_MARKERS, *BUILT_IN_PRIORITIES, "Favorites", "Contents", "card")

#: Properties whose values may be page references although Logseq keeps them for itself.
LINKABLE_PROPERTIES = frozenset({"alias", "aliases", "tags"})
_EDITABLE = frozenset(
    {
        "title",
        "icon",
        "template",
        "template-including-parent",
        "public",
        "filters",
        "exclude-from-graph-view",
        "logseq.query/nlp-date",
        "macro",
        "filetags",
        "logseq.color",
        "logseq.table.version",
        "logseq.table.compact",
        "logseq.table.headers",
        "logseq.table.hover",
        "logseq.table.borders",
        "logseq.table.stripes",
        "logseq.table.max-width",
    }
)
_HIDDEN = frozenset(
    {
        "id",
        "custom-id",
        "background-color",
        "background_color",
        "heading",
        "collapsed",
        "created-at",
        "updated-at",
        "last-modified-at",
        "created_at",
        "last_modified_at",
        "query-table",
        "query-properties",
        "query-sort-by",
        "query-sort-desc",
        "ls-type",
        "hl-type",
        "hl-page",
        "hl-stamp",
        "hl-color",
        "logseq.macro-name",
        "logseq.macro-arguments",
        "logseq.order-list-type",
        "logseq.tldraw.page",
        "logseq.tldraw.shape",
        "todo",
        "doing",
        "now",
        "later",
        "done",
    }
)
#: Built-in property keys: they make no page (``get-page-refs-from-property-names``).
BUILT_IN_PROPERTIES = _EDITABLE | _HIDDEN | LINKABLE_PROPERTIES
#: Properties whose values are never page references (``get-page-ref-names-from-properties``).
NO_REF_PROPERTIES = _EDITABLE | _HIDDEN

# A property key Logseq keeps must read as an EDN keyword without '"|^(){}' and not start with
# '#' (property.cljs ``valid-property-name?``); the others are dropped, values and all.
_INVALID_KEY = regex(r"""^#|[\s,;@~\\\[\]"|^(){}`:]|^/|/$""")


def valid_property_key(key: str) -> bool:
    """Whether Logseq keeps the (normalised) property key ``key`` at all."""
    return bool(key) and _INVALID_KEY.search(key) is None


def property_page(key: str) -> str:
    """The page a (valid, normalised) property key makes: the keyword's name, so ``a/b`` makes
    ``b`` (``(name :a/b)``)."""
    return key.split("/", 1)[1] if "/" in key else key
