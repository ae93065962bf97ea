import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ScriptedModelServer } from '../../test/support/modelServer';
import { headline, measureVariant, type Variant, type VariantResult } from './measureTurns';
import { runNote, withColumnFigures, type Column, type ColumnSection } from '../resultsSection';

/** This bench's section of bench/RESULTS.md. */
export const TURN_IO_SECTION: ColumnSection = { heading: '## Per-turn state I/O', rowHeader: 'per turn' };

/** Turns measured per variant (after one warm-up turn). */
export const DEFAULT_TURNS = 20;

const VARIANTS: readonly Variant[] = [
  { tool: false, chatView: false },
  { tool: false, chatView: true },
  { tool: true, chatView: false },
  { tool: true, chatView: true },
];

const label = (v: Variant) => `${v.tool ? 'turn with one tool call' : 'plain turn'}${v.chatView ? ', Chat view attached' : ''}`;

/** Measures every variant, each in a fresh store and session, against one scripted model server. */
export async function runTurnIo(wasmPath: string, turns = DEFAULT_TURNS): Promise<VariantResult[]> {
  const server = new ScriptedModelServer();
  await server.start();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-bench-turn-io-'));
  const results: VariantResult[] = [];
  try {
    for (const [i, variant] of VARIANTS.entries()) {
      results.push(await measureVariant(path.join(root, `v${i}`), wasmPath, server, variant, turns));
    }
  } finally {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
  return results;
}

/** Counts as whole numbers where they are (a mean of 1.05: one turn in 20 did it twice); times to 0.1 ms. */
const fmt = (n: number | undefined, digits = 2) => (n === undefined ? '-' : Number.isInteger(n) ? String(n) : n.toFixed(digits));
const fmtHeadline = (name: string, n: number | undefined) => fmt(n, name.endsWith('ms (median)') ? 1 : 2);

/** A markdown table: one row per variant, the headline figures per turn as columns. */
export function turnIoTable(results: readonly VariantResult[]): string {
  const names = Object.keys(headline(results[0]!));
  const rows = results.map(
    (r) =>
      `| ${label(r.variant)} | ${Object.entries(headline(r))
        .map(([name, n]) => fmtHeadline(name, n))
        .join(' | ')} |`,
  );
  return [`| per turn | ${names.join(' | ')} |`, `| --- |${names.map(() => ' --- |').join('')}`, ...rows].join('\n');
}

/** Every counted fs call per turn, by function and file, one column per variant. */
export function turnIoBreakdown(results: readonly VariantResult[]): string {
  const keys = [...new Set(results.flatMap((r) => [...r.perTurn.keys()]))].sort();
  const rows = keys.map((k) => `| ${k} | ${results.map((r) => fmt(r.perTurn.get(k) ?? 0, 2)).join(' | ')} |`);
  return [`| fs call, file | ${results.map((r) => label(r.variant)).join(' | ')} |`, `| --- |${results.map(() => ' --- |').join('')}`, ...rows].join('\n');
}

const INTRO = [
  '`node scripts/run-ts.mjs bench/turnIo.ts` (or `npm run bench -- --turn-io`; `-- --as before` fills the other column).',
  'A real SessionStore (opened as the extension opens it) and core Session in a temp folder, against the scripted OpenAI-compatible',
  'server of test/support on 127.0.0.1: one warm-up turn, then the turns counted, each a prompt and a two-chunk answer, or a read_file',
  'call and its answer. The node:fs calls are counted by wrapping fs (bench/turnIo/fsCounter.ts) from the submit until the session is',
  "idle and the index written. A state.json write is an atomic replace (rename); its fsyncs are the temp file's and its folder's.",
  '"Index saves": the index file replaced whole (renamed over), as it was before the index was used in place; a turn now commits',
  "its row into the file, and that commit's fsyncs (the journal's, the file's, the journal's truncation) are among the fsyncs.",
  'Locks are lock files taken (state.lock, index.lock). "Chat view attached": the real SessionStream, with the calls of',
  'currentSession.ts replayed on each event (its infoOf() for the frames; status() for the status bar on turn-end and status;',
  'before: the index row and usage, index queries; after: the session in memory); see bench/turnIo/chatView.ts.',
  'Turn ms: median from submit to the turn-end event.',
].join('\n');

/** The rows RESULTS.md keeps: "variant: measure" -> figure. */
function resultRows(results: readonly VariantResult[]): Array<[string, string]> {
  return results.flatMap((r) =>
    Object.entries(headline(r))
      .filter(([, n]) => n !== undefined)
      .map(([name, n]): [string, string] => [`${label(r.variant)}: ${name}`, fmtHeadline(name, n)]),
  );
}

/** `markdown` (a RESULTS.md text) with these figures in `column` of its per-turn section. */
export function withTurnIoResults(markdown: string, results: readonly VariantResult[], column: Column, repoRoot: string): string {
  const note = runNote(repoRoot, `${results[0]?.turns ?? 0} turns per row`);
  return withColumnFigures(markdown, TURN_IO_SECTION, INTRO, resultRows(results), column, note);
}
