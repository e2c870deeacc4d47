// Logseq's parser (mldoc) and its graph parser's reference rules, as a test oracle for the guard.
// Reads one JSON request per line on stdin, {"texts": [string, ...]}, and answers each with one
// JSON line: for each text, its top-level mldoc nodes. A block ("Heading" node) is described by
// its level, heading size, task marker, priority, property and timestamp counts, and the pages
// and block ids Logseq's graph parser (0.10.x, graph_parser/block.cljs `with-page-refs`,
// `extract-block-refs`) records as its references; any other node only by its type. One process
// answers many requests, so a property test pays node's start-up once.
const readline = require('readline');
const {Mldoc} = require('mldoc');
const CONFIG = JSON.stringify({toc: false, parse_outline_only: false, heading_number: false,
  keep_line_break: true, format: "Markdown", heading_to_list: false,
  exporting_keep_properties: true, inline_type_with_pos: false,
  export_md_remove_options: [], hiccup_in_block: true});
const BLOCK_REF = /^\(\(([a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12})\)\)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// A page name that is not a string (a File link whose label starts with a link): never a page
// of the registry, so the test fails on it rather than guessing what Logseq makes of it.
const NOT_A_NAME = "\u0000not-a-name";

// text.cljs get-page-name / page-ref-un-brackets! (Clojure re-matches: the whole string).
function unBrackets(s) {
  let m;
  if ((m = /^\[(.*)\]\(file:.*\)$/.exec(s))) return m[1].trim();
  if ((m = /^\[\[(file:.*)\]\[.+?\]\]$/.exec(s))) {
    const base = m[1].replace(/\+/g, "/").split("/").pop();
    return base.replace(/\.[^.]*$/, "").replace(/\./g, "/");
  }
  if ((m = /^\[\[(.*)\]\]$/.exec(s))) return m[1];
  return s;
}

// block.cljs get-tag: a Tag node's parts joined as text.
function tagText(node) {
  return node[1].map(([elem, value]) => elem === "Plain" ? value : elem === "Link" ? value.full_text
    : elem === "Nested_link" ? value.content : "").join("");
}

// block.cljs get-page-reference.
function pageOf(node) {
  const [tag, value] = node;
  let page = null;
  if (tag === "Link") {
    const [kind, target] = value.url;
    if (kind === "Page_ref" && typeof target === "string" && !/^[./]*assets/.test(target)
        && !target.startsWith("draws/")) page = target;
    else if (kind === "Search" && typeof target === "string" && target.startsWith("[[")
             && target.endsWith("]]")) page = unBrackets(target);
    else if (kind === "File" && value.label.length) {
      page = typeof value.label[0][1] === "string" ? value.label[0][1] : NOT_A_NAME;
    }
  } else if (tag === "Nested_link") page = value.content.slice(2, -2);
  else if (tag === "Macro" && value.name === "embed") page = unBrackets(value.arguments.join(", "));
  else if (tag === "Tag") page = unBrackets(tagText(node));
  if (page === null) return null;
  const id = BLOCK_REF.exec(page);
  return id ? id[1] : page;
}

// block.cljs get-block-reference (kept only when the id parses as a UUID).
function blockOf(node) {
  const [tag, value] = node;
  let id = null;
  if (tag === "Block_reference") id = node[node.length - 1];
  else if (tag === "Link" && value && value.url && value.url[0] === "Block_ref") id = value.url[1];
  else if (tag === "Macro" && value.name === "embed" && typeof value.arguments[0] === "string") {
    const arg = value.arguments[0];
    if (arg.startsWith("((") && arg.endsWith("))")) id = arg.slice(2, -2);
  } else if (tag === "Link" && value && value.url) {
    const target = value.url[1];
    if (target && target.protocol === "id") id = target.link;
    else if (typeof target === "string") { const m = BLOCK_REF.exec(target); id = m ? m[1] : target; }
  }
  return typeof id === "string" && UUID.test(id) ? id.toLowerCase() : null;
}

// clojure.walk/prewalk over the node tree: every vector and map, depth first.
function walk(x, visit) {
  if (Array.isArray(x)) {
    if (x[0] === "Custom" && x[1] === "query") return;
    if (typeof x[0] === "string") visit(x);
    for (const y of x) walk(y, visit);
  } else if (x && typeof x === "object") {
    for (const k in x) walk(x[k], visit);
  }
}

function references(title, marker, priority) {
  const pages = [marker, priority].filter(p => p);
  const blocks = [];
  walk(title, node => {
    const page = pageOf(node);
    if (page !== null) pages.push(page);
    if (node[0] === "Tag") {
      const tag = unBrackets(tagText(node));
      if (!/[# \t\r\n]/.test(tag)) pages.push(tag);
    }
    const id = blockOf(node);
    if (id !== null) blocks.push(id);
  });
  const named = pages.filter(p => p.trim() !== "");
  // Namespace parents of A/B (of the innermost [[...]] of a name that holds one).
  for (const p of [...named]) {
    const inner = /\[\[([^\[\]]+)\]\]/.exec(p);
    const name = inner ? inner[1] : p;
    if (name.includes("/") && !name.startsWith("./") && !name.startsWith("../")
        && !/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(name)) {
      const parts = name.split("/");
      for (let i = 1; i <= parts.length; i++) named.push(parts.slice(0, i).join("/"));
    }
  }
  return {pages: [...new Set(named)].filter(p => p.trim() !== ""), blocks: [...new Set(blocks)]};
}

function describe(text) {
  return JSON.parse(Mldoc.parseJson(text, CONFIG)).map(([node, pos]) => {
    if (node[0] !== "Heading") return {type: node[0], start: pos.start_pos, end: pos.end_pos};
    const h = node[1];
    return {type: "Heading", start: pos.start_pos, end: pos.end_pos, level: h.level,
            size: h.size, unordered: h.unordered, marker: h.marker || null,
            priority: h.priority || null, properties: h.meta.properties.length,
            timestamps: h.meta.timestamps.length, ...references(h.title, h.marker, h.priority)};
  });
}

const rl = readline.createInterface({input: process.stdin, crlfDelay: Infinity});
rl.on("line", line => {
  if (!line.trim()) return;
  const {texts} = JSON.parse(line);
  process.stdout.write(JSON.stringify(texts.map(describe)) + "\n");
});
