#!/usr/bin/env node
// Which of the Renderer, tmux and xterm.js agree, transcript by transcript: reads the files
// corpus-test.c++'s DumpGeneratedCorpus writes (REA_DIFF_DUMP=DIR: NAME.json, NAME.rea.txt,
// NAME.tmux.txt), replays each NAME.json into xterm.js (xtermjs-oracle.js) and prints, for every
// transcript where the three do not all agree, the first step where any two differ and which:
//
//   NAME step N: rea=tmux, xterm.js differs | xterm.js=tmux, rea differs |
//                xterm.js=rea, tmux differs | all three differ
//
// followed by the three screens when REA_DIFF_VERBOSE is set; xterm.js's screens are left in
// NAME.xtermjs.txt. Usage:
//   compare.js DIR [NAME...]      (default: every NAME.json in DIR)

'use strict';
const fs = require('fs');
const path = require('path');
const { fromJson, replay } = require('./xtermjs-oracle.js');

function steps(text) {
  return text.split(/(?=^step \d+$)/m);
}

async function main() {
  const directory = process.argv[2];
  let names = process.argv.slice(3);
  if (names.length === 0) {
    names = fs.readdirSync(directory).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5));
  }
  const counts = {};
  for (const name of names) {
    const base = path.join(directory, name);
    const rea = steps(fs.readFileSync(base + '.rea.txt', 'utf8'));
    const tmux = steps(fs.readFileSync(base + '.tmux.txt', 'utf8'));
    const xterm = await replay(fromJson(base + '.json'));
    fs.writeFileSync(base + '.xtermjs.txt', xterm.join(''));
    const verdictAt = (i) => {
      const [r, t, x] = [rea[i], tmux[i], xterm[i]];
      return r === t && t === x ? 'all agree'
          : r === t ? 'rea=tmux, xterm.js differs'
          : x === t ? 'xterm.js=tmux, rea differs'
          : x === r ? 'xterm.js=rea, tmux differs' : 'all three differ';
    };
    // The first step where any two differ, and the first where rea and tmux do (the step
    // known-differences.h classifies): they differ when xterm.js parted from both before.
    const first = xterm.findIndex((x, i) => verdictAt(i) !== 'all agree');
    const firstReaTmux = xterm.findIndex((x, i) => rea[i] !== tmux[i]);
    if (first < 0) { console.log(`${name}: all agree`); counts['all agree'] = (counts['all agree'] || 0) + 1; continue; }
    const verdict = verdictAt(first);
    counts[verdict] = (counts[verdict] || 0) + 1;
    let line = `${name} step ${first}: ${verdict}`;
    if (firstReaTmux >= 0 && firstReaTmux !== first) {
      line += `; rea and tmux from step ${firstReaTmux}: ${verdictAt(firstReaTmux)}`;
    }
    console.log(line);
    if (process.env.REA_DIFF_VERBOSE) {
      for (const step of new Set([first, firstReaTmux].filter((i) => i >= 0))) {
        for (const [who, screens] of [['rea', rea], ['tmux', tmux], ['xterm.js', xterm]]) {
          console.log(`  step ${step} ${who}: ` + screens[step].split('\n').slice(1).join('\n    '));
        }
      }
    }
  }
  console.log(Object.entries(counts).map(([v, n]) => `${v}: ${n}`).join('; '));
}

main().catch((error) => { console.error(error); process.exit(1); });
