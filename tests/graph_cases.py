"""The small graphs of tests/graph_gen.py `CASES` (the oracle test's and tests/test_firstpass.py's).

Why: one graph per construct where journal-agent's backlinks or journal days may part from
Logseq's, each saying what Logseq does with it; tests/test_logseq_graph_oracle.py holds
journal-agent to what Logseq's own graph parser makes of it.
"""

from __future__ import annotations

from dataclasses import dataclass


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
    "org_directives": Case(
        "Org `#+KEY:` lines anywhere in a page are its properties, never a headline's text"
        " (`#+ALIAS:` under a headline makes an alias, `#+NAME:` and `#+RESULTS:` are no tags),"
        " and replace a `:PROPERTIES:` drawer's; right after a drawer (blank lines between) they"
        " join it; indented in a list item they are its text; a key given again keeps its last"
        " value; a page drawer's `:title:` renames the page only from the page's first line.",
        {
            "pages/Babel.org": (
                "* run [[Shell]]\n#+NAME: ls\n#+BEGIN_SRC sh\nls\n#+END_SRC\n\n"
                "#+RESULTS: ls\n: out\n** TODO check it\n"
            ),
            "pages/late.org": (
                "intro\n* first\n#+ALIAS: Late Alias\n#+FOO: [[Late Ref]]\n** sub\n"
                "#+TITLE: Late Title\n"
            ),
            "pages/drawn.org": ":PROPERTIES:\n:alias: Lost Alias\n:END:\n* body\n#+STARTUP: x\n",
            "pages/joined.org": (
                ":PROPERTIES:\n:alias: Kept Alias\n:END:\n\n#+TITLE: Joined Title\n* h\n"
                ":PROPERTIES:\n:k: v\n:END:\n#+BAR: [[Block Prop]]\n"
            ),
            "pages/listed.org": (
                "* h\n- item\n  #+ALIAS: Item Text\n- a\n  - b\n    #+ALIAS: Broken List\n"
            ),
            "pages/late drawer.org": (
                "text\n:PROPERTIES:\n:title: Not A Title\n:alias: Drawer Alias\n:END:\n* body\n"
            ),
            "pages/twice.org": "#+ALIAS: First Alias\n* body\n#+ALIAS: Second Alias\n",
            "journals/2026_11_20.org": (
                "* [[Late Alias]] [[Late Title]] [[Lost Alias]] [[Kept Alias]] [[Joined Title]]\n"
                "* [[Item Text]] [[Broken List]] [[Not A Title]] [[Drawer Alias]]\n"
                "* [[First Alias]] [[Second Alias]]\n"
            ),
        },
    ),
    "org_inline": Case(
        "Org inline text: `~code~` and `=verbatim=` hide references, but open only where mldoc"
        " tries a construct (after white space, `[`, `*` … or a link; its plain text runs over"
        " `(`, `'`, letters and the marks themselves), hold no mark of their own kind, and never"
        " open inside a link (`[[E = mc2 = energy]]` is that page).",
        {
            "pages/Target.md": "- the target\n",
            "journals/2026_11_21.org": (
                "* strike-like ~~old [[Target]]~ is no code\n"
                "* nor is (~[[Target]]~) in brackets\n"
                "* nor 'x=[[Target]]=' in quotes\n"
                "* code ~[[Hidden]]~ after a space, [~[[Hidden]]~ after a bracket\n"
                "* verbatim =[[Hidden]]= and ~a=[[Hidden]]=b~\n"
                "* none in a name [[E = mc2 = energy]]\n"
            ),
        },
    ),
    "org_raw_blocks": Case(
        "In org pages as in Markdown, HTML and a LaTeX environment at the start of a line run to"
        " their end across lines, headlines included, and hold no references (an unclosed"
        " `\\begin{x}` to the end of the page); the rest of their last line is text.",
        {
            "pages/Target.md": "- the target\n",
            "journals/2026_11_22.org": (
                "* math\n\\begin{align}\nx = [[Hidden]]\n\\end{align} then [[Target]]\n"
                "* html\n<div>\n[[Hidden]]\n* no headline [[Hidden]]\n</div>\n"
                "* after them [[Target]]\n"
                "* unclosed\n\\begin{x}\n[[Hidden]]\n* swallowed [[Target]]\n"
            ),
        },
    ),
    "org_schedules": Case(
        "A paragraph whose first or second inline piece is a timestamp is its block's schedule:"
        " Logseq keeps no reference of it. One empty line before it is a piece (a line break),"
        " and so is the end of a LaTeX environment's line, but #+BEGIN blocks take the blank"
        " lines after them and lists one; a list is no part of the paragraph before or after"
        " it, and one whose item holds an indented item is paragraph text.",
        {
            "pages/Target.md": "- the target\n",
            "journals/2026_11_23.org": (
                "* one blank line\n\n<2026-11-20 Fri> [[Target]] dropped\n"
                "* two blank lines\n\n\n<2026-11-20 Fri> [[Target]] kept\n"
                "* TODO after math\n\\begin{x}y\\end{x}\nSCHEDULED: <2026-11-21 Sat> [[Target]]\n"
                "* spaces first\n\n  <2026-11-20 Fri> [[Target]] kept\n"
                "* after a source block\n#+BEGIN_SRC\nx\n#+END_SRC\n\n\n"
                "<2026-11-20 Fri> [[Target]] dropped\n"
                "* TODO a list under the schedule\nSCHEDULED: <2026-11-21 Sat>\n- book [[Target]]\n"
                "* a list item that starts with a date\n- <2026-11-20 Fri> [[Target]] kept\n"
                "* a list, then a date\n- item\n\n<2026-11-20 Fri> [[Target]] dropped\n"
                "* a broken list\n<2026-11-20 Fri>\n- a\n  - b [[Target]] dropped\n"
            ),
        },
    ),
    "md_schedules": Case(
        "In Markdown too, a paragraph that starts with a timestamp is its block's schedule, of"
        " which Logseq keeps no reference; a quote, a list item, displayed math, hiccup, a rule"
        " or a table row after it is a block of its own, whose references count. In page"
        " directives (`#+KEY:`), references inside emphasis are none (mldoc's getReferences).",
        {
            "pages/Target.md": "- the target\n",
            "pages/Notes.md": (
                "#+description: **[[Hidden]]** and [[Target]] ~~[[Hidden]]~~\n\n"
                "- a note [[Target]]\n"
            ),
            "journals/2026_11_25.md": (
                "- TODO call\n  SCHEDULED: <2026-11-26 Thu> [[Hidden]]\n  > ask [[Target]]\n"
                "- TODO list\n  DEADLINE: <2026-11-26 Thu>\n  1. book [[Target]]\n"
                "- TODO table\n  SCHEDULED: <2026-11-26 Thu>\n  | a | [[Target]] |\n"
                "- TODO rule\n  SCHEDULED: <2026-11-26 Thu>\n  ---\n  [[Target]] after\n"
                "- TODO plain\n  SCHEDULED: <2026-11-26 Thu>\n  more [[Hidden]]\n"
            ),
        },
    ),
    "pre_block_children": Case(
        "A page's leading text (its properties, front matter, `#+KEY:` lines or plain text) is a"
        " block at level 1, the pre-block: the indented blocks before the page's first block at"
        " level 1 are its children and inherit its references (`tags:: Keyboard`, then"
        " `\\t- note`: the note is in Keyboard's linked references, and a `DONE` child resolves"
        " it); a block at level 1, bulleted or a heading, is its sibling. So in org pages.",
        {
            "pages/Keyboard.md": "- keys\n",
            "journals/2026_11_10.md": (
                "tags:: Keyboard\nauthor:: [[Ann]]\n\n\t- a child\n\t\t- a grandchild\n"
                "- a sibling\n\t- under the sibling\n"
            ),
            "journals/2026_11_11.md": "intro [[Keyboard]]\n\t\t- deep\n\t- DONE mid\n",
            "journals/2026_11_12.md": "---\ntags: Mouse\n---\n  - spaced child\n# heading\n",
            "journals/2026_11_13.md": "#+tags: Mouse\n\t- child\n",
            "journals/2026_11_14.org": "intro [[Screen]]\n*** deep\n** mid\n* top\n** under\n",
            "pages/Desk.org": ":PROPERTIES:\n:tags: Screen\n:END:\n** child\n",
        },
    ),
    "property_value_names_trimmed": Case(
        "A reference in a property value names its page trimmed (`project:: [[Kitchen ]]` is"
        " `Kitchen`), as the graph parser trims a value's references; in a block's text"
        " `[[Spaced ]]` keeps its white space.",
        {
            "pages/Kitchen.md": "- the kitchen\n",
            "pages/Tagged.md": "- t\n",
            "journals/2026_11_20.md": (
                "- a note\n  project:: [[Kitchen ]]\n- b [[Spaced ]] here\n"
                "- c\n  tags:: [[Tagged ]], other\n"
            ),
        },
    ),
    "org_links": Case(
        "Org links `[[url][label]]`: the label holds balanced brackets (a link too) and a lone"
        " `]`; with a label, a url holding `:` is a URL and refers to nothing, without one it is"
        " a page; a backtick is no code in org, and stays in a page name.",
        {
            "pages/Target.md": "- the target\n",
            "pages/Two Words.md": "- tw\n",
            "journals/2026_11_24.org": (
                "* a label with a link [[Target][see [[Two Words]]]]\n"
                "* a label with brackets [[Target][the [draft] copy]] and ]s [[Target][a]b]]\n"
                "* a url with a colon and a label is a URL [[Two Words: notes][notes]]\n"
                "* without a label it is a page [[Target: notes][]]\n"
                "* a backtick in a name [[Tar`get]] #tag`x\n"
            ),
        },
    ),
    "org_property_values": Case(
        "Property values in an org page are org text: `=verbatim=` and `~code~` hide references,"
        " a backtick is no code, a `[[url][label]]` link refers to nothing (Logseq keeps page"
        " refs and tags only), and in a comma-separated value each of them parts the items.",
        {
            "pages/Some Page.md": "- sp\n",
            "pages/sources.org": (
                "#+SOURCE: `[[Tick]]` =[[Verb]]= ~[[Code]]~ [[Some Page]]\n"
                "#+TAGS: a =b= c, #d, `e`\n* h\n"
            ),
            "journals/2026_11_25.org": (
                "* read\n:PROPERTIES:\n:source: [[https://x.com/a][the title]]\n:END:\n"
                "* cited\n:PROPERTIES:\n:source: [[Some Page][the title]]\n:END:\n"
                "* code\n:PROPERTIES:\n:source: `[[Tick]]` =[[Verb]]= ~[[Code]]~\n:END:\n"
                "* tagged\n:PROPERTIES:\n:tags: [[https://x.com/a][t]], b, a =b= c, `e`\n:END:\n"
            ),
        },
    ),
    "org_headline_tags": Case(
        "Org headline tags (`:work:home:`, each a reference) are the title's last plain text:"
        " after spaces or right after a link, but not after a tab or glued to a word.",
        {
            "pages/Target.md": "- t\n",
            "journals/2026_11_26.org": (
                "* tags after spaces        :work:home:\n"
                "* a tab before them is title text\t:work:\n"
                "* right after a link [[Target]]:work:\n"
                "* glued to a word:work:\n"
            ),
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
    "heads_cut_by_blocks": Case(
        "An HTML block, a LaTeX environment or a drawer before a page's properties runs over the"
        " `- ` lines inside it: the properties after it are still the page's (`alias:: Nick`"
        " makes Nick an alias of Real, and the journal's `[[Nick]]` shows under Real).",
        {
            "pages/Real.md": "<div>\n- x\n</div>\nalias:: Nick\n- body\n",
            "pages/Formula.md": "\\begin{equation}\n- x\n\\end{equation}\nalias:: Eq\n- body\n",
            "pages/Timed.md": ":LOGBOOK:\n- x\n:END:\nalias:: Clocked\n- body\n",
            "journals/2026_11_20.md": "- [[Nick]] work\n- [[Eq]] solved\n- [[Clocked]] in\n",
        },
    ),
    "drawer_property_keys": Case(
        "A `:PROPERTIES:` drawer's keys in an ordinary page's body are pages of property keys,"
        " as `key::` lines are: `status`, which a journal names, is one.",
        {
            "pages/Notes.md": "- a block\n  :PROPERTIES:\n  :status: open\n  :END:\n",
            "journals/2026_11_21.md": "- [[status]] and [[Plain]]\n",
        },
    ),
    "builtin_spellings": Case(
        "A built-in page keeps its own spelling however a block spells it: `[#a]` refers to A,"
        " `[[contents]]` to Contents, a `Favorites::` key to Favorites.",
        {
            "pages/Notes.md": "- [#a] urgent\n- see [[contents]]\n  Favorites:: yes\n",
            "journals/2026_11_22.md": "- [[Plain]] work\n",
        },
    ),
    "reference_spellings_in_pages": Case(
        "A page without a file that no journal names is titled by its first spelling in path"
        " order, in a page whose head is not all properties too (`FOO`, not `foo`).",
        {
            "pages/a.md": "- see [[FOO]]\n",
            "pages/b.md": "---\ntitle: bee\n---\n- see [[foo]]\n",
            "journals/2026_11_23.md": "- [[Plain]] work\n",
        },
    ),
    "boundary_slashes": Case(
        "Logseq drops one `/` from each end of a reference for the page's title, and one more"
        " for its name: `[[//zeta]]` is page `zeta` titled `/zeta`, `#//nu` page `nu` titled"
        " `/nu`, and each namespace parent of the name as written likewise (`[[//Omi/cron//]]`"
        " also names `/Omi`); `[[iota//]]` and `[[/kappa/]]` are `iota` and `kappa`;"
        " `[[lam//mu]]` keeps its inner slashes. (Three or more slashes at an end are left out:"
        " Logseq lists `[[///theta]]` under a page `theta` its database holds beside the page"
        " `/theta` the reference makes; journal-agent under `/theta`.)",
        {
            "journals/2026_11_24.md": (
                "- a [[//zeta]]\n"
                "- b [[//eta//]]\n"
                "- d [[iota//]]\n"
                "- e [[/kappa/]]\n"
                "- g [[lam//mu]]\n"
                "- h #//nu\n"
                "- l [[//Omi/cron//]]\n"
            ),
            "journals/2026_11_25.md": "- later [[zeta]] and [[/kappa]] and [[Eta]]\n",
        },
    ),
    "spellings_in_parse_order": Case(
        "A page without a file is titled as the first file Logseq parses that names it spells"
        " it last: journals newest first (`foo`, not the older `FOO`), `contents.` files, then"
        " the others by path; in a file, the namespace parents of its title before its blocks'"
        " references (`One/TWO` from the page's tags, not `ONE/Two` from its file name); in a"
        " block, the first name as written, then the namespace parents (`kk` from"
        " `[[kk/b/c]]` beats `[[KK]]`); a block's own names only, not those it inherits"
        " (`project x`, though the last block inherits `Project X`).",
        {
            "journals/2026_11_01.md": (
                "- [[FOO]] [[bar/baz/x]]\n- [[Mixed]]\n- [[kk/b/c]] [[KK]]\n"
                "- [[Rr]]\n  - [[rr/s]]\n- [[Bb]] [[bB]]\n"
            ),
            "journals/2026_11_02.md": (
                "- [[foo]] [[Qux]]\n- [[mixed]] [[MIXED]]\n"
                "- [[Project X]] meeting\n  - on [[project x]] dates\n  - follow-ups\n"
            ),
            "pages/a.md": "- [[qux]] [[BAR/Baz/y]]\n",
            "pages/Bar___BAZ___z.md": "- body\n",
            "pages/Aa.md": "- [[zed/q]]\n",
            "pages/Zed___r.md": "- body\n",
            "pages/contents.md": "- [[Cee]]\n",
            "pages/b.md": "- [[cee]] [[one/two]]\n",
            "pages/ONE___Two___three.md": "tags:: [[One/TWO]]\n\n- x\n",
            "pages/Kay___Lee___m.md": "- [[kay/LEE/n]]\n",
        },
    ),
}
