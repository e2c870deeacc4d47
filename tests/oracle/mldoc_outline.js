// Logseq's own parser as a test oracle. Reads {"texts": [string, ...]} on stdin and prints, for
// each text, what Logseq's file graph makes of it: the page properties' refs and, for every block
// (mldoc "Heading" node), its 0-based line, its level, its task marker and the page names it
// references (inline refs of its title and body, and property-value refs as Logseq's graph
// parser adds them: comma-separated values of alias/tags, page refs of other values).
const {Mldoc} = require('mldoc');
const CONFIG = JSON.stringify({toc: false, parse_outline_only: false, heading_number: false,
  keep_line_break: true, format: "Markdown", heading_to_list: false,
  exporting_keep_properties: true, inline_type_with_pos: false,
  export_md_remove_options: [], hiccup_in_block: true});
const COMMA = new Set(["alias", "tags"]);
const NO_REFS = new Set(["id", "collapsed", "title", "filters", "public", "icon"]);
// Logseq keeps a block ref only when its id parses as a UUID (graph_parser/block.cljs,
// extract-block-refs: parse-uuid); mldoc makes a Block_ref of any ((text)).
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const blockRef = id => UUID.test(id) ? "((" + id.toLowerCase() + "))" : null;
const CODE = new Set(["Src", "Example", "Code", "Latex_Fragment", "Latex_Environment", "Raw_Html",
  "Inline_Html", "Export_Snippet", "Verbatim", "Comment", "Displayed_Math", "Custom"]);

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
    if (!property && url[0] === "File" && x[1].label.length && typeof x[1].label[0][1] === "string") acc.push(x[1].label[0][1]);
    if (url[0] === "Block_ref" && blockRef(url[1])) acc.push(blockRef(url[1]));
    return acc;
  }
  if (tag === "Nested_link") {
    acc.push(x[1].content.slice(2, -2));
    for (const c of x[1].children) if (c[0] === "Nested_link") acc.push(c[1].content.slice(2, -2));
    return acc;
  }
  if (tag === "Macro" && x[1].name === "embed") {
    // Any other argument names a page too (its arguments joined by ", ").
    const arg = (x[1].arguments[0] || "").trim();
    if (arg.startsWith("((") && arg.endsWith("))")) {
      if (blockRef(arg.slice(2, -2))) acc.push(blockRef(arg.slice(2, -2)));
    } else if (x[1].arguments.join(", ").trim()) acc.push(unBrackets(x[1].arguments.join(", ")));
    return acc;
  }
  if (tag === "Property_Drawer") { propertyRefs(x[1], acc); return acc; }
  for (const y of x) collect(y, acc, property);
  return acc;
}

function propertyRefs(props, acc) {
  for (const [key, value, refs] of props) {
    const k = key.toLowerCase().replace(/_/g, "-");
    if (NO_REFS.has(k)) continue;
    if (COMMA.has(k)) {
      for (let item of value.split(",")) {
        item = item.trim().replace(/^#/, "");
        if (item.startsWith("[[") && item.endsWith("]]")) item = item.slice(2, -2);
        if (item.trim()) acc.push(item.trim());
      }
    } else collect(refs, acc, true);
  }
}

function outline(text) {
  const bytes = Buffer.from(text, "utf8");
  const lineOf = pos => { let n = 0; for (let i = 0; i < pos; i++) if (bytes[i] === 10) n++; return n; };
  const nodes = JSON.parse(Mldoc.parseJson(text, CONFIG));
  const result = {page_refs: [], blocks: []};
  let current = null;
  for (const [node, pos] of nodes) {
    if (node[0] === "Heading") {
      const h = node[1];
      current = {line: lineOf(pos.start_pos), level: h.level, marker: h.marker || null,
                 refs: collect(h.title, [])};
      result.blocks.push(current);
    } else if (current) {
      collect(node, current.refs);
    } else if (node[0] === "Property_Drawer") {
      propertyRefs(node[1], result.page_refs);
    }
  }
  for (const b of result.blocks) b.refs.sort();
  result.page_refs.sort();
  return result;
}

let input = "";
process.stdin.on("data", d => input += d);
process.stdin.on("end", () => {
  const {texts} = JSON.parse(input);
  // mldoc does not strip a byte-order mark; Logseq reads files without it.
  process.stdout.write(JSON.stringify(texts.map(t => outline(t.replace(/^\uFEFF/, "")))));
});
