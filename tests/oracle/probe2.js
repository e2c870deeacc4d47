const {Mldoc} = require('mldoc');
const cfg = JSON.stringify({toc: false, parse_outline_only: false, heading_number: false,
    keep_line_break: true, format: "Markdown", heading_to_list: false,
    exporting_keep_properties: true, inline_type_with_pos: false,
    export_md_remove_options: [], hiccup_in_block: true});
function refs(x, acc) {
  if (Array.isArray(x)) {
    if (x[0] === 'Tag') { acc.push('#' + JSON.stringify(x[1])); return acc; }
    if (x[0] === 'Link' && x[1].url) { acc.push(JSON.stringify(x[1].url)); }
    for (const y of x) refs(y, acc);
  } else if (x && typeof x === 'object') for (const k in x) refs(x[k], acc);
  return acc;
}
const text = require('fs').readFileSync(0, 'utf8');
for (const line of text.split('\n')) { if (!line) continue;
  const out = JSON.parse(Mldoc.parseJson(line, cfg));
  console.log(JSON.stringify(line), '=>', out.map(([n]) => n[0] + (n[0]==='Heading'? n[1].level:'') + ' ' + refs(n, []).join(' ')).join(' | '));
}
