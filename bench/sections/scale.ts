// The rows of one generated store (N realistic sessions over 50 workspaces): index rebuild and
// size, store open, first pages and searches in a running process and from a fresh one, a turn's
// index update, memory, whole durable turns, and `braid exec "hi"` against a bare model call.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cachedStore, removeAddedSessions, storeBytes, type BenchStore } from '../cachedStore';
import type { BenchContext } from '../context';
import type { Measured } from '../memory';
import { fresh, type FreshFigure } from '../processes';
import { fmt, overFloor, plain, underGoal, versus, withGoal, type Figure } from '../table';

/** A word in about 1% of sessions (the first prompt of one session in 97), and two words in most. */
const QUERIES = ['module 42', 'compile widget'];
const QUERY_NAMES = ['a word in ~1% of sessions', 'two words in most sessions'];
/** Turns a generated session has. */
export const TURNS = 20;

const label = (count: number) => (count >= 1000 ? `${count / 1000}k sessions` : `${count} sessions`);
const mb = (bytes: number) =>
  bytes >= 2 ** 30 ? `${(bytes / 2 ** 30).toFixed(1)} GB` : `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
const figure = (m: Measured | FreshFigure): Figure => ({ ms: m.ms, peakMb: m.peakMb });

export async function measureScale(ctx: BenchContext, count: number, workspaces: number): Promise<void> {
  const store = cachedStore(count, workspaces, TURNS, ctx.say);
  const load = os.loadavg()[0]!.toFixed(1);
  const name = `${label(count)} over ${workspaces} workspaces (${Math.round(count / workspaces)} in the workspace measured)`;
  ctx.say(name);
  const rebuilt = await rebuildIndex(ctx, store);
  const peerDir = path.join(path.dirname(store.root), 'peer-b');
  const peers = await ctx.measure(
    'peerMeasures',
    { kind: 'rebuild-floor', args: { sessionsDir: store.layout.sessionsDir } },
    { kind: 'peers', args: { current: store.current.sessions, all: store.sessionFolders, queries: QUERIES, runs: ctx.quick ? 1 : 3 } },
    { kind: 'peer-turn', args: { dir: peerDir, sessions: store.count, earlier: TURNS, runs: ctx.runs.turns } },
  );
  ctx.add(
    name,
    overFloor(
      `index rebuild, every workspace (fresh \`braid rebuild-index\`, index files deleted first)`,
      rebuilt,
      'every state.json and log head read',
      peers['rebuild-floor']!.floor!,
      2,
    ),
  );
  const bytes = storeBytes(store);
  ctx.add(
    name,
    plain(
      `index size (${(bytes.allIndexes / store.count / 1024).toFixed(1)} KB a session)`,
      `${mb(bytes.index)} this workspace, ${mb(bytes.allIndexes)} every workspace`,
      `the main logs it indexes: ${mb(bytes.logs)}`,
      `${((bytes.allIndexes / bytes.logs) * 100).toFixed(0)}% of the logs`,
    ),
  );
  const args = { root: store.root, workspaceDir: store.current.dir };
  const warm = (await ctx.measure('braidMeasures', { kind: 'warm', args: { ...args, queries: QUERIES, runs: ctx.runs.warm } })).warm!;
  const node = await fresh(ctx.programs, ctx.quick ? 3 : 10, ['-e', '0']);
  warmRows(ctx, name, warm, peers.peers!, node);
  await freshRows(ctx, store, name, peers.peers!, node);
  const turn = (await ctx.measure('braidMeasures', { kind: 'turn', args: { ...args, earlier: TURNS, runs: ctx.runs.turns } })).turn!.turn!;
  ctx.add(
    name,
    versus(
      `a whole durable turn (turn ${TURNS + 1}: 6 messages, 3 usage, fsynced turn_begin and turn_end, index saved)`,
      figure(turn),
      `(b) per message, rewrite the whole history and a global list of ${store.count} sessions, each fsynced`,
      figure(peers['peer-turn']!.turn!),
    ),
  );
  await execRows(ctx, store, name);
  removeAddedSessions(store.layout);
  ctx.describe(name, `Load average ${load} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end.`);
}

/** `braid rebuild-index` from a fresh process, after every index file is deleted; its progress shows. */
async function rebuildIndex(ctx: BenchContext, store: BenchStore): Promise<FreshFigure> {
  for (const folder of store.sessionFolders) fs.rmSync(path.join(folder, 'index.sqlite'), { force: true });
  fs.rmSync(store.layout.legacyIndexFile, { force: true });
  ctx.say(`braid rebuild-index (its progress below)`);
  const rebuilt = await fresh(ctx.programs, 1, cliArgs(ctx, store, 'rebuild-index'), { passStderr: true });
  ctx.say('');
  return rebuilt;
}

const cliArgs = (ctx: BenchContext, store: BenchStore, ...command: string[]) => [
  ctx.cli,
  '--data-dir',
  store.root,
  '--workspace',
  store.current.dir,
  ...command,
];

function warmRows(ctx: BenchContext, name: string, warm: Record<string, Measured>, peers: Record<string, Measured>, node: FreshFigure): void {
  const w = (what: string) => `${what} (warm)`;
  const indexRead = figure(warm.readIndexFile!);
  const firstOpen = overFloor(
    w("store open for one workspace, the process's first (sql.js started before it)"),
    figure(warm.firstOpen!),
    'its index file read',
    indexRead,
  );
  ctx.add(name, { ...firstOpen, braid: `${firstOpen.braid} (sql.js's start before it: ${fmt(warm.sqlJsStart!)})` });
  ctx.add(name, overFloor(w('store open for one workspace, again'), figure(warm.reopen!), 'its index file read', indexRead));
  const list = figure(warm.listWorkspace!);
  ctx.add(name, versus(w('first page (50) of one workspace'), list, `(a1) read every log of the folder [${peers.a1!.detail}]`, figure(peers.a1!)));
  ctx.add(name, versus(w('first page (50) of one workspace'), list, `(a2) head + stat of every log [${peers.a2!.detail}]`, figure(peers.a2!)));
  ctx.add(name, versus(w('first page (50) of one workspace'), list, `(a3) newest first, stop after 100 [${peers.a3!.detail}]`, figure(peers.a3!)));
  searchRows(ctx, name, w, 'one workspace', warm, 'searchWorkspace', peers, 'search', '(s) scan every log of the folder');
  ctx.add(
    name,
    overFloor(
      w("a turn's index update (the row written in place, committed)"),
      figure(warm.indexUpdate!),
      "an atomic fsynced write of the row's bytes",
      figure(warm.indexUpdateFloor!),
    ),
  );
  memoryRow(ctx, name, w('resident memory, this workspace open'), warm.memoryWorkspace!, node);
  const everyWorkspace: Array<[string, Measured]> = [
    ["first page of every workspace, first asked (opens every workspace's index)", warm.loadAll!],
    ['first page of every workspace, every index open', warm.listAll!],
  ];
  for (const [what, braid] of everyWorkspace) {
    ctx.add(name, versus(w(what), figure(braid), '(a3) newest first over every workspace, stop after 100', figure(peers.a3All!)));
  }
  searchRows(ctx, name, w, 'every workspace', warm, 'searchAll', peers, 'searchAll', '(s) scan every log of every workspace');
  memoryRow(ctx, name, w("resident memory, every workspace's index open"), warm.memoryAll!, node);
}

/** Braid's searches against the scan's, one row per query, each with the in-process goal. */
function searchRows(
  ctx: BenchContext,
  name: string,
  w: (what: string) => string,
  scope: string,
  warm: Record<string, Measured>,
  braidKey: string,
  peers: Record<string, Measured>,
  peerKey: string,
  peerLabel: string,
): void {
  QUERIES.forEach((_, i) => {
    const braid = warm[`${braidKey}${i}`]!;
    const row = versus(w(`search ${scope}, ${QUERY_NAMES[i]}`), figure(braid), peerLabel, figure(peers[`${peerKey}${i}`]!));
    ctx.add(name, withGoal(row, braid.ms, 20, '20 ms in process'));
  });
}

/** A process's resident memory against `node -e 0`'s. */
function memoryRow(ctx: BenchContext, name: string, what: string, memory: Measured, node: FreshFigure): void {
  ctx.add(
    name,
    plain(what, `${memory.peakMb!.toFixed(0)} MB`, `\`node -e 0\`: ${node.peakMb?.toFixed(0)} MB`, `${(memory.peakMb! / node.peakMb!).toFixed(1)}x`),
  );
}

/** The same questions from a new process: `braid list`, `braid search`, a window's activation path, and the peers each in a new process. */
async function freshRows(ctx: BenchContext, store: BenchStore, name: string, peers: Record<string, Measured>, node: FreshFigure): Promise<void> {
  const f = (what: string) => `${what} (fresh process)`;
  const runs = ctx.runs.fresh;
  const list = await fresh(ctx.programs, runs, cliArgs(ctx, store, 'list'));
  for (const peer of ctx.quick ? ['a2'] : ['a1', 'a2', 'a3']) {
    const other = await fresh(ctx.programs, runs, [ctx.programs.peerList, peer, store.current.sessions]);
    ctx.add(name, versus(f('`braid list` (this workspace, every row)'), list, `${peerName(peer)} in a new process [${peers[peer]!.detail}]`, other));
  }
  const search = await fresh(ctx.programs, runs, cliArgs(ctx, store, 'search', QUERIES[0]!));
  ctx.add(name, underGoal(f(`\`braid search\`, ${QUERY_NAMES[0]}`), search, 2 * node.ms + 20, `2x \`node -e 0\` (${fmt(node)}) + 20 ms`));
  if (!ctx.quick) {
    // A window's tree is usable once its first page is read: the program times that from before
    // it loads the bundle (an extension host's Node is already running).
    const activation = await fresh(ctx.programs, runs, [ctx.programs.firstPage, store.root, store.current.dir, ctx.wasmPath, ctx.extensionBundle], {
      reportedMs: /rows in ([\d.]+) ms/,
    });
    const a2 = await fresh(ctx.programs, runs, [ctx.programs.peerList, 'a2', store.current.sessions]);
    ctx.add(name, versus(f('window activation path: load dist/extension.js, open the store, first page'), activation, '(a2) head + stat in a new process', a2));
    ctx.add(
      name,
      underGoal(
        'activation to a usable tree (the same, from loading the bundle to the first page read)',
        { ms: activation.reportedMs!, peakMb: activation.peakMb },
        150,
        '150 ms',
        'goal: 150 ms',
      ),
    );
    const listAll = await fresh(ctx.programs, 1, cliArgs(ctx, store, 'list', '--all'));
    const a3All = await fresh(ctx.programs, 1, [ctx.programs.peerList, 'a3', ...store.sessionFolders]);
    ctx.add(name, versus(f('`braid list --all` (every workspace, every row)'), listAll, '(a3) newest first over every workspace, in a new process', a3All));
  }
  ctx.add(name, plain(f('`node -e 0`, the floor of any new process'), fmt(node)));
}

function peerName(peer: string): string {
  return { a1: '(a1) read every log of the folder', a2: '(a2) head + stat of every log', a3: '(a3) newest first, stop after 100' }[peer]!;
}

/** `braid exec "hi"` against a bare streaming call from a new process, whole and to the first token; and the first token in a running process. */
async function execRows(ctx: BenchContext, store: BenchStore, name: string): Promise<void> {
  const env = { BRAID_PROVIDER: 'openai-compatible', BRAID_MODEL: 'scripted-model', BRAID_BASE_URL: ctx.baseUrl, BRAID_API_KEY: '' };
  const answer = /Hello/;
  const exec = await fresh(ctx.programs, ctx.runs.exec, cliArgs(ctx, store, 'exec', 'hi'), { env, cwd: store.current.dir, firstOutput: answer });
  const bare = await fresh(ctx.programs, ctx.runs.exec, [ctx.programs.bareCall, ctx.baseUrl], { firstOutput: answer });
  ctx.add(name, versus(`\`braid exec "hi"\`, a new session (fresh process)`, exec, 'a bare streaming model call from a new process', bare));
  ctx.add(name, versus(`\`braid exec "hi"\`: first token (fresh process)`, { ms: exec.firstMs! }, 'the bare call: first token', { ms: bare.firstMs! }));
  if (ctx.quick) return; // the Session's program takes seconds to bundle
  const args = { root: store.root, workspaceDir: store.current.dir, baseUrl: ctx.baseUrl, runs: ctx.runs.exec };
  const warm = (await ctx.measure('sessionMeasures', { kind: 'first-token', args }))['first-token']!;
  ctx.add(name, versus(`first token of a prompt, Session open (warm)`, figure(warm.braid!), 'a bare streaming call in a running process', figure(warm.bare!)));
}
