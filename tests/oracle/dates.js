// Test oracle for journal_agent/dates.py: formats dates with the real moment.js (Obsidian's
// daily notes) and date-fns (Logseq plugins; the letters Logseq's cljs-time mostly shares).
//
// stdin:  {"dialect": "moment"|"date-fns", "patterns": [...], "dates": ["2026-11-29", ...]}
//         or a JSON array of such requests (one node start for several dialects).
// stdout: {pattern: [text per date, or null where the library throws]}, or an array of those.
//
// Dates are local midnight (`new Date(y, m - 1, d)`), as both apps format them; run with TZ=UTC
// so that no daylight-saving jump moves midnight.
'use strict';
const moment = require('moment');
const {format} = require('date-fns');

const FORMATTERS = {
  'moment': (date, p) => moment(date).locale('en').format(p),
  'date-fns': (date, p) => format(date, p,
      {useAdditionalWeekYearTokens: true, useAdditionalDayOfYearTokens: true}),
};

function run(request) {
  const fmt = FORMATTERS[request.dialect];
  if (!fmt) throw new Error(`unknown dialect ${request.dialect}`);
  const dates = request.dates.map((s) => {
    const [y, m, d] = s.split('-').map(Number);
    return new Date(y, m - 1, d);
  });
  const out = {};
  for (const p of request.patterns) {
    out[p] = dates.map((date) => {
      try {
        return fmt(date, p);
      } catch (e) {
        return null;
      }
    });
  }
  return out;
}

const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(Array.isArray(input) ? input.map(run) : run(input)));
