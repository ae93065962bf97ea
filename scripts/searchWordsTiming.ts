// How long building the search words takes (a turn's document, `distinctWords`), on the texts of
// real logs: every main log under a store folder, each turn's texts as the index reads them. A
// timing to compare before and after a change, not a test.
// Usage: node scripts/run-ts.mjs scripts/searchWordsTiming.ts <store folder> [megabytes, default 50] [runs, default 3]
import fs from 'node:fs';
import path from 'node:path';
import { distinctWords } from '../src/core/index/searchText';
import { messageTexts } from '../src/core/index/turnText';
import { isKnown, parseRecordLine } from '../src/core/wire/records';

const [folder, megabytes = '50', runs = '3'] = process.argv.slice(2);
if (!folder) {
  console.error('usage: searchWordsTiming.ts <store folder> [megabytes] [runs]');
  process.exit(2);
}

/** The main logs under `dir`, in a stable order. */
function mainLogs(dir: string): string[] {
  const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
  return entries.flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return mainLogs(full);
    return e.name === 'wire.jsonl' && full.includes(`${path.sep}main${path.sep}`) ? [full] : [];
  });
}

/** Each turn's texts, log by log, until `limit` characters of text. */
function turnTexts(logs: string[], limit: number): { turns: string[][]; chars: number } {
  const turns: string[][] = [];
  let chars = 0;
  for (const log of logs) {
    const byTurn = new Map<number, string[]>();
    for (const line of fs.readFileSync(log, 'utf8').split('\n')) {
      const read = parseRecordLine(line);
      if (!('record' in read) || !isKnown(read.record) || read.record.t !== 'message') continue;
      const texts = messageTexts(read.record);
      const list = byTurn.get(read.record.turn) ?? [];
      if (!byTurn.has(read.record.turn)) byTurn.set(read.record.turn, list);
      list.push(...texts);
      chars += texts.reduce((n, t) => n + t.length, 0);
    }
    turns.push(...byTurn.values());
    if (chars >= limit) break;
  }
  return { turns, chars };
}

const { turns, chars } = turnTexts(mainLogs(folder), Number(megabytes) * 1024 * 1024);
console.log(`${turns.length} turns, ${(chars / 1024 / 1024).toFixed(1)} M characters of text`);
const times: number[] = [];
let words = 0;
for (let run = 0; run < Number(runs); run++) {
  const started = performance.now();
  words = 0;
  for (const texts of turns) words += distinctWords(texts).length;
  times.push(performance.now() - started);
}
console.log(`distinctWords: ${times.map((t) => t.toFixed(0)).join(', ')} ms (best ${Math.min(...times).toFixed(0)} ms), ${words} characters of documents`);
