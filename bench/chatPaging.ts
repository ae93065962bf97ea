// The Chat view paging back through a long session, in a real VS Code (code-server and Chromium,
// as the e2e suite runs them): `npm run bench -- --chat-paging [--runs 3] [--messages 5000]
// [--as before|after] [--no-write]`. Packages the extension, opens a generated session of
// `--messages` messages from the palette and pages back to its first message as a user holding
// the view at the top (test/support/chatPaging.ts); `--runs` sessions, each opened once. Prints
// each run and the medians, and fills one column of "Chat view paging" in bench/RESULTS.md.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { addLongSessions, openFromPalette, pageToStart, type PagingRun } from '../test/support/chatPaging';
import { ScriptedModelServer } from '../test/support/modelServer';
import { Workbench } from '../test/support/workbench';
import { MemoryPeak, type ProcessKind } from './chatPaging/processMemory';
import { median } from './table';
import { columnArg, measuredCommit, runNote, withColumnFigures, type ColumnSection } from './resultsSection';
import { numberArg } from './benchInputs';

/** This bench's section of bench/RESULTS.md. */
export const CHAT_PAGING_SECTION: ColumnSection = { heading: '## Chat view paging', rowHeader: 'per run (median)' };

const INTRO = [
  '`npm run bench -- --chat-paging` (bench/chatPaging.ts): the packaged extension in code-server, driven in headless Chromium as the',
  'e2e suite drives it. A generated session of 5,000 messages (1,250 turns of a prompt, a read_file call, its result and an answer;',
  '3,750 transcript entries) is opened from the palette; then the transcript is scrolled to the top and put back at the top each',
  'frame an older page moves it, until the page has no older page and the first message is in the DOM (test/support/chatPaging.ts).',
  'Messages per second: the messages over that time. Peak memory: resident memory sampled every 100 ms while paging, of the extension',
  "host, and of Chromium's renderer processes together (the workbench and the webview). Each run opens another session of the same shape.",
  'The machine is shared (see the load average): runs of one column differ by tens of percent.',
].join('\n');

/** One session opened and paged back. */
interface Run extends PagingRun {
  readonly openedMs: number;
  readonly renderMs: number;
  readonly peakMb: Record<ProcessKind, number>;
}

/** Runs the bench with the command line's options; writes RESULTS.md unless `--no-write`. */
export async function chatPagingBench(argv: readonly string[], repoRoot: string, resultsFile: string): Promise<void> {
  measuredCommit(repoRoot); // the commit as the run starts, named in its note
  const runs = numberArg(argv, '--runs', 3);
  const messages = numberArg(argv, '--messages', 5_000);
  const column = columnArg(argv);
  const packaged = spawnSync('npm', ['run', 'package'], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
  if (packaged.status !== 0) throw new Error('npm run package failed');
  const results = await measureRuns(runs, messages);
  const rows = resultRows(results, messages);
  console.log(`\nChat view paging, ${messages} messages, median of ${runs} runs:\n${rows.map(([m, v]) => `  ${m}: ${v}`).join('\n')}`);
  if (argv.includes('--no-write')) return;
  const previous = fs.existsSync(resultsFile) ? fs.readFileSync(resultsFile, 'utf8') : '# Benchmark results\n';
  const note = runNote(repoRoot, `${runs} runs of ${messages} messages`);
  fs.writeFileSync(resultsFile, withColumnFigures(previous, CHAT_PAGING_SECTION, INTRO, rows, column, note));
  console.log(`wrote the ${column} column of "Chat view paging" in ${path.relative(repoRoot, resultsFile)}`);
}

async function measureRuns(runs: number, messages: number): Promise<Run[]> {
  // A session opens only with a model configured; paging never asks it anything.
  const model = new ScriptedModelServer();
  const baseUrl = await model.start();
  const workbench = await Workbench.launch({
    name: 'bench-chat-paging',
    settings: { 'braid.provider': 'openai-compatible', 'braid.model': 'scripted-model', 'braid.baseUrl': baseUrl },
  }).catch(async (err: unknown) => {
    await model.close();
    throw err;
  });
  try {
    await workbench.openBraid();
    await workbench.chatFrame().locator('body[data-handshake="complete"]').waitFor({ timeout: 60_000 });
    const sessions = addLongSessions(workbench, runs, messages);
    const results: Run[] = [];
    for (const session of sessions) {
      const opened = await openFromPalette(workbench, session.id);
      const memory = new MemoryPeak();
      const paged = await pageToStart(workbench.chatFrame(), session.firstMessageId).finally(() => memory.stop());
      if (!paged.reachedStart) throw new Error(`run ${results.length + 1} did not reach the first message in time (${JSON.stringify(paged)})`);
      const run = { ...opened, ...paged, peakMb: { ...memory.peak } };
      console.log(
        `run ${results.length + 1}: opened in ${run.openedMs} ms, paged back in ${run.ms.toFixed(0)} ms (${perSecond(messages, run.ms).toFixed(0)} messages/s, ${run.pages} pages, ${run.entries} entries, at most ${run.maxRows} rows in the DOM); peak memory: extension host ${run.peakMb.extensionHost.toFixed(0)} MB, renderers ${run.peakMb.renderers.toFixed(0)} MB (${memory.found.extensionHost} and ${memory.found.renderers} processes)`,
      );
      results.push(run);
    }
    await workbench.screenshot('paged-to-start');
    return results;
  } finally {
    await workbench.close();
    await model.close();
  }
}

const perSecond = (messages: number, ms: number) => messages / (ms / 1000);

function resultRows(results: readonly Run[], messages: number): [string, string][] {
  const mid = (f: (r: Run) => number) => median(results.map(f));
  return [
    ['open the session to painted (ms)', mid((r) => r.openedMs).toFixed(0)],
    ['page back to the first message (ms)', mid((r) => r.ms).toFixed(0)],
    ['messages per second', mid((r) => perSecond(messages, r.ms)).toFixed(0)],
    ['older pages', mid((r) => r.pages).toFixed(0)],
    ['rows in the DOM at most', mid((r) => r.maxRows).toFixed(0)],
    ['peak memory, extension host (MB)', mid((r) => r.peakMb.extensionHost).toFixed(0)],
    ['peak memory, Chromium renderers (MB)', mid((r) => r.peakMb.renderers).toFixed(0)],
  ];
}
