#!/usr/bin/env node
// xterm.js as a second oracle for the renderer's differential test (issue 24; SPEC B §6.11 names
// xterm.js the reference for rendering, tmux is only the oracle the test can run by itself).
//
// Replays a transcript into @xterm/headless (the version package.json pins) and prints, after every step, the visible text lines
// (trailing spaces trimmed), the cursor and the active buffer, in the form
// tests/unit/render-diff/corpus-test.c++'s dump writes for the Renderer and tmux:
//
//   step N
//   cursor X,Y normal|alternate
//   |line|        (one per visible row)
//
// Input, either
//   xtermjs-oracle.js FILE.json   a transcript as tests/data/render-diff/*.json (transcript.h):
//                                 {"columns":C,"rows":R,"steps":[{"output":"..."}|{"resize":[C,R]}]}
//                                 chunks merged until they end outside an escape sequence, as
//                                 loadTranscript does, so the step numbers are the same;
//   REA_DIFF_SIZE=CxR REA_DIFF_STEPS='...' xtermjs-oracle.js
//                                 the TranscriptFromTheEnvironment form (steps separated by |,
//                                 <resize CxR>, \e \n \r \t \xNN escapes).
// Widths: xterm.js's own tables are Unicode 6 (emoji one column) or, with @xterm/addon-unicode11,
// Unicode 11; programs (glibc 2.36's wcwidth), tmux and the Renderer measure with Unicode 15
// (helpers/pty/screen-widths.h). So that a width does not hide what the reflow does, the oracle
// registers a provider that takes the double widths from the Renderer's own table
// (helpers/pty/screen-width-table.c++, WIDE) and zero widths from Unicode 11.
//
// Cursor line: xterm.js >= 5.5 leaves the line the cursor is on unwrapped at a resize unless
// reflowCursorLine is set, because shells redraw that line themselves. tmux and the Renderer
// reflow it, so the oracle sets it; REA_XTERMJS_REFLOW_CURSOR_LINE=0 shows xterm.js's default.
//
// Run it through scripts/xtermjs-oracle.sh, which installs the pinned packages first.

'use strict';
const fs = require('fs');
const { Terminal } = require('@xterm/headless');
const path = require('path');
const { Unicode11Addon } = require('@xterm/addon-unicode11');

const SCROLLBACK = 1000;  // replay.h's SCROLLBACK

function glibcWideRanges() {
  const table = fs.readFileSync(
      path.join(__dirname, '../../helpers/pty/screen-width-table.c++'), 'utf8');
  const wide = /const WidthRange WIDE\[\] = \{([^;]*)\};/.exec(table)[1];
  return [...wide.matchAll(/\{(0x[0-9a-f]+), (0x[0-9a-f]+)\}/g)].map((m) => [Number(m[1]), Number(m[2])]);
}

function widthProvider(unicode11) {
  const wide = glibcWideRanges();
  const isWide = (codePoint) => {
    let low = 0;
    let high = wide.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (codePoint > wide[middle][1]) low = middle + 1;
      else if (codePoint < wide[middle][0]) high = middle - 1;
      else return true;
    }
    return false;
  };
  const provider = {
    version: 'rea-glibc',
    wcwidth: (codePoint) => unicode11.wcwidth(codePoint) === 0 ? 0 : isWide(codePoint) ? 2 : 1,
    charProperties: (codePoint, preceding) => {
      // As xterm.js's own providers (UnicodeService.createPropertyValue: width in bits 1-2,
      // "joins the preceding character" in bit 0).
      let width = provider.wcwidth(codePoint);
      let join = width === 0 && preceding !== 0;
      if (join) {
        const precedingWidth = (preceding >> 1) & 3;
        if (precedingWidth === 0) join = false;
        else if (precedingWidth > width) width = precedingWidth;
      }
      return (width & 3) << 1 | (join ? 1 : 0);
    },
  };
  return provider;
}

function unicode11Provider() {
  // The provider the addon registers, caught on its way to a terminal.
  let provider = null;
  new Unicode11Addon().activate({ unicode: { register: (p) => { provider = p; } } });
  return provider;
}

const WIDTHS = widthProvider(unicode11Provider());

function endsInGround(bytes) {
  // transcript.h's endsInGround, on UTF-8 bytes.
  let state = 'ground';
  let utf8Pending = 0;
  for (const c of bytes) {
    switch (state) {
      case 'ground':
        if (utf8Pending > 0 && (c & 0xc0) === 0x80) { utf8Pending--; continue; }
        utf8Pending = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
        if (c === 0x1b) state = 'escape';
        break;
      case 'escape':
        if (c === 0x5b) state = 'csi';
        else if ([0x5d, 0x50, 0x5f, 0x5e, 0x58].includes(c)) state = 'string';
        else if (c <= 0x2f) { /* intermediate: wait for the final byte */ }
        else state = 'ground';
        break;
      case 'csi':
        if (c >= 0x40 && c <= 0x7e) state = 'ground';
        break;
      case 'string':
        if (c === 0x07) state = 'ground';
        if (c === 0x1b) state = 'stringEscape';
        break;
      case 'stringEscape':
        state = c === 0x5c ? 'ground' : 'string';
        break;
    }
  }
  return state === 'ground' && utf8Pending === 0;
}

function fromJson(path) {
  const json = JSON.parse(fs.readFileSync(path, 'utf8'));
  const transcript = { columns: json.columns, rows: json.rows, steps: [] };
  let pending = Buffer.alloc(0);
  for (const step of json.steps) {
    if ('output' in step) {
      pending = Buffer.concat([pending, Buffer.from(step.output, 'utf8')]);
      if (endsInGround(pending)) { transcript.steps.push({ output: pending }); pending = Buffer.alloc(0); }
    } else {
      if (pending.length > 0) transcript.steps.push({ output: pending });
      pending = Buffer.alloc(0);
      transcript.steps.push({ resize: step.resize });
    }
  }
  if (pending.length > 0) transcript.steps.push({ output: pending });
  return transcript;
}

function fromEnvironment(size, steps) {
  const [columns, rows] = size.split('x').map(Number);
  const transcript = { columns, rows, steps: [] };
  for (const step of steps.split('|')) {
    const resize = /^<resize (\d+)x(\d+)>$/.exec(step);
    if (resize) { transcript.steps.push({ resize: [Number(resize[1]), Number(resize[2])] }); continue; }
    const bytes = [];
    const text = Buffer.from(step, 'utf8');
    for (let i = 0; i < text.length; i++) {
      if (text[i] === 0x5c && i + 3 < text.length && text[i + 1] === 0x78) {
        bytes.push(parseInt(text.subarray(i + 2, i + 4).toString(), 16));
        i += 3;
      } else if (text[i] === 0x5c && i + 1 < text.length) {
        const c = String.fromCharCode(text[++i]);
        bytes.push({ e: 0x1b, n: 0x0a, r: 0x0d, t: 0x09 }[c] ?? c.charCodeAt(0));
      } else {
        bytes.push(text[i]);
      }
    }
    transcript.steps.push({ output: Buffer.from(bytes) });
  }
  return transcript;
}

function screen(terminal) {
  const buffer = terminal.buffer.active;
  const lines = [];
  for (let y = 0; y < terminal.rows; y++) {
    const line = buffer.getLine(buffer.baseY + y);
    lines.push(line ? line.translateToString(true).replace(/ +$/, '') : '');
  }
  // buffer.cursorX is terminal.cols while a wrap is pending, as tmux and the Renderer report it.
  return `cursor ${buffer.cursorX},${buffer.cursorY} ${buffer.type}\n` +
         lines.map((line) => `|${line}|\n`).join('');
}

// The screens after each step, one string per step.
async function replay(transcript) {
  const terminal = new Terminal({ cols: transcript.columns, rows: transcript.rows,
                                  scrollback: SCROLLBACK, allowProposedApi: true,
                                  reflowCursorLine: process.env.REA_XTERMJS_REFLOW_CURSOR_LINE !== "0" });
  terminal.unicode.register(WIDTHS);
  terminal.unicode.activeVersion = 'rea-glibc';
  const screens = [];
  for (let i = 0; i < transcript.steps.length; i++) {
    const step = transcript.steps[i];
    if (step.resize) {
      terminal.resize(step.resize[0], step.resize[1]);
    } else {
      await new Promise((resolve) => terminal.write(step.output, resolve));
    }
    screens.push(`step ${i}\n` + screen(terminal));
  }
  terminal.dispose();
  return screens;
}

async function main() {
  const transcript = process.argv[2] ? fromJson(process.argv[2])
      : fromEnvironment(process.env.REA_DIFF_SIZE, process.env.REA_DIFF_STEPS);
  process.stdout.write((await replay(transcript)).join(''));
}

module.exports = { fromJson, replay };
if (require.main === module) main().catch((error) => { console.error(error); process.exit(1); });
