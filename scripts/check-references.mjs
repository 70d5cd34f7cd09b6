#!/usr/bin/env node
// Fails when a tracked text file cites what is not in the repository:
// design notes, research notes or seeds kept elsewhere ("seed 003", "research:
// x.md §2", "DESIGN §7"), or how the work was done ("issue 16", "session 39",
// "this machine"). Code, comments, tests and docs state the fact, or link a
// page in docs/; commit messages are where history goes.
//
//   node scripts/check-references.mjs [file...]   (default: every tracked file)
//
// Exit 0 when clean, 1 with one line per finding (file:line: rule: text).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** What is caught, each with the reason a reader could not follow it. */
export const RULES = [
  { id: 'seed', re: /\bseeds? #?\d+\b/i, why: 'a design seed kept outside the repository' },
  { id: 'the-seed', re: /\bthe seed(?:'s)?\b(?! corpus)/i, why: 'a design seed kept outside the repository' },
  { id: 'research', re: /\bresearch\b/i, why: 'research notes kept outside the repository' },
  { id: 'section-sign', re: /§/, why: 'a section of a document that is not in the repository' },
  { id: 'design-doc', re: /\bDESIGN\b(?:\.md)?/, why: 'the design document kept outside the repository' },
  { id: 'notes-file', re: /\b(?:claude-code-jsonl|claude-code-2\.1-as-written|openclaw-formats|openclaw-sqlite-store|openclaw-plugins|openclaw-acp-claude-code|resume-and-cleaning-anchors|napi-rs)\.md\b/, why: 'a research note kept outside the repository' },
  { id: 'outside-path', re: /\/work\/(?:shared|main|wt)\b|\.\.\/shared\/(?:fixtures|research|seeds)\b|\bshared\/(?:research|seeds)\b/, why: 'a path outside the repository' },
  { id: 'issue', re: /\bissues? #?\d+\b/i, why: 'a ticket of the development process' },
  { id: 'session', re: /(?<![-\w])session \d+\b/i, why: 'a work session of the development process' },
  { id: 'stop', re: /\bstop \d+\b/i, why: 'a step of the development process' },
  { id: 'this-machine', re: /\bthis machine\b/i, why: 'the machine a measurement was made on: state it, or use the bench' },
  { id: 'process', re: /\bthe lead\b|\bwave\/\w|\bissues (?:show|note|resolved|blocked)\b|\bduplicates --change\b|\bscratch timer\b/i, why: 'a tool or role of the development process' },
];

/**
 * Where a rule's words mean something else. Each exception names the files
 * (a path, or a folder ending in `/`), the rule, the text it allows on the
 * line, and why.
 */
export const EXCEPTIONS = [
  { files: ['__test__/selection.test.mjs'], rule: 'session', text: 'I think session 1 is relevant!', why: 'a model reply the test feeds the parser' },
];

/** Files that are data, not prose: real transcripts, databases, fuzz inputs, lock files. */
const DATA = [/^fuzz\/corpus\//, /^crates\/core\/tests\/data\//, /^fixtures\/(?!.*README\.md$)/, /(^|\/)(?:Cargo|package-lock)\.(?:lock|json)$/, /\.jsonl$/];
const SELF = 'scripts/check-references.mjs';
/** This check and its test quote the words they catch. */
const QUOTING = [SELF, '__test__/check-references.test.mjs'];

const applies = (exception, file, rule, line) =>
  exception.rule === rule &&
  line.includes(exception.text) &&
  exception.files.some((f) => (f.endsWith('/') ? file.startsWith(f) : file === f));

/** The findings in one file's text. */
export function check(file, text) {
  const findings = [];
  text.split('\n').forEach((line, i) => {
    for (const rule of RULES) {
      const m = line.match(rule.re);
      if (m && !EXCEPTIONS.some((e) => applies(e, file, rule.id, line))) {
        findings.push({ file, line: i + 1, rule: rule.id, why: rule.why, text: line.trim().slice(0, 160), match: m[0] });
      }
    }
  });
  return findings;
}

function trackedFiles() {
  return execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
}

function main() {
  const args = process.argv.slice(2);
  const files = (args.length ? args.map((f) => path.relative(root, path.resolve(f))) : trackedFiles())
    .filter((f) => !QUOTING.includes(f) && !DATA.some((re) => re.test(f)));
  const findings = [];
  for (const file of files) {
    let bytes;
    try {
      bytes = fs.readFileSync(path.join(root, file));
    } catch {
      continue; // deleted in the work tree
    }
    if (bytes.subarray(0, 8000).includes(0)) continue; // binary
    findings.push(...check(file, bytes.toString('utf8')));
  }
  for (const f of findings) console.error(`${f.file}:${f.line}: ${f.rule} ("${f.match}": ${f.why}): ${f.text}`);
  if (findings.length) {
    console.error(`\n${findings.length} reference(s) to what is not in the repository. State the fact, or link a page in docs/; an exception goes into EXCEPTIONS in ${SELF} with its reason.`);
    process.exit(1);
  }
  console.log(`check-references: ${files.length} files, no reference to what is not in the repository`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
