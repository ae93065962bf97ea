// The prompt's prefix over a session: how many bytes of each model call's prompt the next call
// changes (what a provider's prompt cache loses), over a 20-turn session with tools. Run:
//   node scripts/run-ts.mjs bench/prefix.ts [--turns 20] [--as before|after] [--no-write]
// (or `npm run bench -- --prefix`). Prints the figures and fills one column (default `after`) of
// "Prompt prefix across turns" in bench/RESULTS.md.
import fs from 'node:fs';
import path from 'node:path';
import { columnArg, measuredCommit, runNote, withColumnFigures, type ColumnSection } from './resultsSection';
import { measurePrefix, type PrefixFigures } from './prefix/measurePrefix';
import { wasmPathIn } from '../test/support/store';
import { numberArg } from './benchInputs';

const repoRoot = path.resolve(__dirname, '..', '..', '..');
const resultsFile = path.join(repoRoot, 'bench', 'RESULTS.md');

const PREFIX_SECTION: ColumnSection = { heading: '## Prompt prefix across turns', rowHeader: 'over the session' };

const INTRO = [
  '`npm run bench -- --prefix` (`bench/prefix.ts`; `-- --as before` fills the other column). A real core Session in a git',
  'repository with an AGENTS.md (git context on, as in a trusted workspace) against the scripted OpenAI-compatible server of',
  "test/support on 127.0.0.1, which plays OpenAI's prompt cache (a prompt's beginning shared with an earlier one of the same",
  'model, in blocks of 128 tokens from 1,024 on, 4 bytes a token). 20 turns in the modes a user switches between (Agent, Ask,',
  'Plan, Auto-accept edits), each one tool call (a file read, or written where the mode writes) and an answer: 40 calls. A',
  "prompt is what the server compares: the tools' JSON, then each message's. Changed prefix bytes: bytes of a prompt that the",
  'next one did not begin with; fresh bytes: bytes of each prompt after the part it shared with the one before.',
].join('\n');

function rows(f: PrefixFigures): Array<[string, string]> {
  const n = (x: number) => x.toLocaleString('en-US');
  return [
    ['model calls', n(f.calls)],
    ['prompt bytes sent', n(f.promptBytes)],
    ['prefix bytes changed between calls', n(f.changedPrefixBytes)],
    ['calls whose prompt changed before its new messages', n(f.prefixBreaks)],
    ['fresh bytes (read anew)', n(f.freshBytes)],
    ['prompt tokens read from the cache', `${(f.cachedShare * 100).toFixed(1)}%`],
  ];
}

async function main(): Promise<void> {
  measuredCommit(repoRoot); // the commit as the run starts, named in its note
  const argv = process.argv.slice(2);
  const column = columnArg(argv);
  const turns = numberArg(argv, '--turns', 20, 2);
  const figures = await measurePrefix(wasmPathIn(repoRoot), turns);
  const table = rows(figures);
  console.log(`Prompt prefix over ${turns} turns (${column}):`);
  for (const [what, value] of table) console.log(`  ${what}: ${value}`);
  if (argv.includes('--no-write')) return;
  const previous = fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '# Benchmark results\n';
  fs.writeFileSync(resultsFile, withColumnFigures(previous, PREFIX_SECTION, INTRO, table, column, runNote(repoRoot, `${turns} turns`)));
  console.log(`\nwrote the ${column} column of "${PREFIX_SECTION.heading.slice(3)}" in bench/RESULTS.md`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
