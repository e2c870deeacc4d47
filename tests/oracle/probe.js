const {Mldoc} = require('mldoc');
const cfg = JSON.stringify({toc: false, parse_outline_only: false, heading_number: false,
    keep_line_break: true, format: "Markdown", heading_to_list: false,
    exporting_keep_properties: true, inline_type_with_pos: false,
    export_md_remove_options: [], hiccup_in_block: true});
const text = require('fs').readFileSync(0, 'utf8');
const out = JSON.parse(Mldoc.parseJson(text, cfg));
for (const [n, pos] of out) console.log(JSON.stringify(n).slice(0, 400), JSON.stringify(pos));
