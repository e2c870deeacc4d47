// Logseq's own parser as a test oracle. Reads {"texts": [string, ...], "format": "Markdown" or
// "Org" (default Markdown)} on stdin and prints, for
// each text, what Logseq's file graph makes of it: the page properties' refs and, for every block
// (mldoc "Heading" node), its 0-based line, its level, its task marker and the page names it
// references (inline refs of its title and body, and property-value refs as Logseq's graph
// parser adds them: comma-separated values of alias/tags, page refs of other values).
const {Mldoc} = require('mldoc');
const config = format => JSON.stringify({toc: false, parse_outline_only: false,
  heading_number: false, keep_line_break: true, format, heading_to_list: false,
  exporting_keep_properties: true, inline_type_with_pos: false,
  export_md_remove_options: [], hiccup_in_block: true});
let CONFIG = config("Markdown");
let ORG = false;
const COMMA = new Set(["alias", "aliases", "tags"]);
// Built-in properties whose values are no references (graph_parser/property.cljs: editable and
// hidden built-in properties but alias/aliases/tags), and the keys Logseq drops as invalid
// (property.cljs valid-property-name?: an EDN keyword without "|^(){} that is not a #tag).
const NO_REFS = new Set(["title", "icon", "template", "template-including-parent", "public",
  "filters", "exclude-from-graph-view", "logseq.query/nlp-date", "macro", "filetags",
  "logseq.color", "logseq.table.version", "logseq.table.compact", "logseq.table.headers",
  "logseq.table.hover", "logseq.table.borders", "logseq.table.stripes", "logseq.table.max-width",
  "id", "custom-id", "background-color", "heading", "collapsed", "created-at", "updated-at",
  "last-modified-at", "query-table", "query-properties", "query-sort-by", "query-sort-desc",
  "ls-type", "hl-type", "hl-page", "hl-stamp", "hl-color", "logseq.macro-name",
  "logseq.macro-arguments", "logseq.order-list-type", "logseq.tldraw.page", "logseq.tldraw.shape",
  "todo", "doing", "now", "later", "done"]);
const INVALID_KEY = /^#|[\s,;@~\\\[\]"|^(){}`:]|^\/|\/$/;
// Logseq keeps a block ref only when its id parses as a UUID (graph_parser/block.cljs,
// extract-block-refs: parse-uuid); mldoc makes a Block_ref of any ((text)).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const blockRef = id => UUID.test(id) ? "((" + id.toLowerCase() + "))" : null;
const CODE = new Set(["Src", "Example", "Code", "Latex_Fragment", "Latex_Environment", "Raw_Html",
  "Inline_Html", "Export_Snippet", "Verbatim", "Comment", "Displayed_Math", "CommentBlock",
  "Export"]);

function inlineText(nodes) {
  return nodes.map(n => n[0] === "Plain" ? n[1] : n[0] === "Link" ? n[1].full_text : "").join("");
}

// graph_parser text.cljs page-ref-un-brackets!: "[[X]]" (the whole string) is X.
const unBrackets = s => { const m = /^\[\[(.*)\]\]$/.exec(s); return m ? m[1] : s; };

function collect(x, acc, property = false) {
  if (!Array.isArray(x)) {
    if (x && typeof x === "object") for (const k in x) collect(x[k], acc, property);
    return acc;
  }
  const tag = x[0];
  if (typeof tag === "string" && CODE.has(tag)) return acc;
  // #+BEGIN_QUERY: the graph parser skips custom queries (block.cljs with-page-refs); the other
  // #+BEGIN_… kinds (QUOTE, NOTE, …) are read like any text.
  if (tag === "Custom" && x[1] === "query") return acc;
  if (tag === "Tag") {
    // The whole tag is a page, and so is each page ref in it (block.cljs get-tag, prewalk).
    const parts = x[1];
    const name = unBrackets(inlineText(parts));
    acc.push(name);
    for (const p of parts) if (p[0] === "Link" && p[1].url[0] === "Page_ref" && p[1].url[1] !== name) acc.push(p[1].url[1]);
    return acc;
  }
  if (tag === "Link") {
    // block.cljs get-page-reference: a page ref, a search for a whole [[X]], a .md file's label.
    const url = x[1].url;
    if (url[0] === "Page_ref") acc.push(url[1]);
    // (Property values keep page refs only: text.cljs extract-refs-from-mldoc-ast.)
    if (!property && url[0] === "Search" && url[1].startsWith("[[") && url[1].endsWith("]]")) acc.push(unBrackets(url[1]));
    // graph_parser/block.cljs get-page-reference: in org, [[page][label]] is a Search link to
    // the page (not to a local asset), and [[file:…][Label]] refers to the page of its label;
    // not in a property value, whose links but page refs are dropped (text.cljs
    // extract-refs-from-mldoc-ast: ast-link?)
    if (ORG && !property && url[0] === "Search" && !/^[./]*assets/.test(url[1])) acc.push(url[1]);
    // and a link to a Markdown file refers to the page of its label's first (plain) text
    if (url[0] === "File" && !property && !inProperty && x[1].label.length && x[1].label[0][0] === "Plain" && x[1].label[0][1].trim()) acc.push(x[1].label[0][1]);
    if (url[0] === "Block_ref" && blockRef(url[1])) acc.push(blockRef(url[1]));
    return acc;
  }
  if (tag === "Nested_link") {
    acc.push(x[1].content.slice(2, -2));
    for (const c of x[1].children) if (c[0] === "Nested_link") acc.push(c[1].content.slice(2, -2));
    return acc;
  }
  if (tag === "Macro" && x[1].name === "embed") {
    // block.cljs get-page-reference: the argument is a page, brackets off, or a block ref's id
    // (a page too); with-block-refs: a block ref to a UUID
    const arg = x[1].arguments.join(", ").trim();
    if (arg.startsWith("[[") && arg.endsWith("]]")) acc.push(arg.slice(2, -2));
    else if (arg.startsWith("((") && arg.endsWith("))") && blockRef(arg.slice(2, -2))) {
      acc.push(blockRef(arg.slice(2, -2)), arg.slice(2, -2));
    } else if (arg) acc.push(arg);
    return acc;
  }
  if (tag === "Property_Drawer") { propertyRefs(x[1], acc); return acc; }
  for (const y of x) collect(y, acc, property);
  return acc;
}

let inProperty = false;

function propertyRefs(props, acc, page = false) {
  inProperty = true;
  // the graph parser makes a map of the page's properties: a key given again replaces the
  // first there (a block keeps the refs of both)
  const byKey = page ? new Map() : null;
  if (page) for (const prop of props) byKey.set(prop[0].toLowerCase().replace(/[_ ]/g, "-"), prop);
  const kept = page ? [...byKey.values()] : props;
  for (const [key, value, refs] of kept) {
    const k = key.toLowerCase().replace(/[_ ]/g, "-");
    if (NO_REFS.has(k) || !k || INVALID_KEY.test(k)) continue;
    if (/^".*"$/.test(value)) continue;  // a "quoted" value names nothing
    const own = collect(refs, [], true);
    acc.push(...own);
    if (COMMA.has(k)) {
      // text.cljs parse-property-refs: the refs, and the comma-separated plain text around them
      const seen = new Set(own);
      // (mldoc parses no empty text: it prints "not enough input" and returns nothing)
      const nodes = value ? JSON.parse(Mldoc.parseInlineJson(value, CONFIG)) : [];
      for (const [node, text] of nodes) {
        if (node !== "Plain") continue;
        for (const item of text.split(/[,\uff0c]/).map(t => t.trim()).filter(t => t)) {
          if (!seen.has(item)) { acc.push(item); seen.add(item); }
        }
      }
    }
  }
  inProperty = false;
}

function outline(text) {
  const bytes = Buffer.from(text, "utf8");
  const lineOf = pos => { let n = 0; for (let i = 0; i < pos; i++) if (bytes[i] === 10) n++; return n; };
  const nodes = JSON.parse(Mldoc.parseJson(text, CONFIG));
  const result = {page_refs: [], blocks: []};
  const directives = [];
  let current = null;
  for (const [node, pos] of nodes) {
    if (node[0] === "Directive") {
      // #+KEY: value and YAML front matter, anywhere: page properties (mldoc.cljc
      // collect-page-properties), never a block's text; their refs are mldoc's getReferences
      // of the value (mldoc.cljc get-references): refs inside emphasis are none, a query's are
      const refs = node[2] ? JSON.parse(Mldoc.getReferences(node[2], CONFIG)) : [];
      directives.push([node[1], node[2], refs]);
    } else if (node[0] === "Heading") {
      const h = node[1];
      current = {line: lineOf(pos.start_pos), level: h.level, marker: h.marker || null,
                 refs: collect(h.title, []), tags: h.tags || []};
      result.blocks.push(current);
    } else if (current && node[0] === "Property_Drawer") {
      // a block's properties are its first drawer (block.cljs extract-blocks keeps that one)
      if (!current.drawer) propertyRefs(node[1], current.refs);
      current.drawer = true;
    } else if (current && node[0] === "Paragraph" && [node[1][0], node[1][1]].some(
      n => n && n[0] === "Timestamp")) {
      // a block's schedule: the graph parser keeps no reference of it (block.cljs
      // paragraph-timestamp-block?)
    } else if (current) {
      collect(node, current.refs);
    } else if (node[0] === "Property_Drawer") {
      propertyRefs(node[1], result.page_refs, true);
    }
  }
  // collect-page-properties puts the directives first: the graph parser then keeps them as the
  // page's properties, not a drawer's (block.cljs extract-blocks keeps the first), one value a key
  if (directives.length) {
    result.page_refs = [];
    propertyRefs(directives, result.page_refs, true);
  }
  for (const b of result.blocks) { b.refs.sort(); delete b.drawer; }
  result.page_refs.sort();
  return result;
}

let input = "";
process.stdin.on("data", d => input += d);
process.stdin.on("end", () => {
  const {texts, format} = JSON.parse(input);
  CONFIG = config(format || "Markdown");
  ORG = format === "Org";
  // mldoc does not strip a byte-order mark; Logseq reads files without it.
  process.stdout.write(JSON.stringify(texts.map(t => outline(t.replace(/^\uFEFF/, "")))));
});
