// The realistic stores of the index-scale benchmark, cached like the other generated stores
// (bench/cachedStore.ts): `count` sessions over `workspaces` workspaces in Braid's own formats
// (generate.ts writeSessionFolder), turns shaped as storeShape.ts says, a few sessions of
// LONG_TURNS turns, the planted words; and beside the store a Codex-style state database holding
// the same sessions, one row each (nativeSqlite.ts).
import fs from 'node:fs';
import path from 'node:path';
import { newSessionId } from '../../src/core/ids';
import { StoreLayout } from '../../src/core/format/layout';
import { WireLogWriter } from '../../src/core/wire/wireLog';
import type { NewRecord } from '../../src/core/wire/records';
import { workspaceKey } from '../../src/core/workspace/workspaceKey';
import { random } from '../benchInputs';
import { cacheRoot, cachedStoreOf, storeIsCached, type BenchStore } from '../cachedStore';
import { createdAt, titleOf, writeSessionFolder } from '../generate';
import { shapedTurn } from '../turnOps/generateSession';
import { drawn, OUTPUT_WORD, plantedIn, PROMPT_WORD, wordsText, type StoreShape } from './storeShape';
import { writeStateDatabase, type ThreadRow } from './nativeSqlite';

/** Bumped whenever what this file writes changes, so a cached store of an older generator is never measured. */
const VERSION = 2;
/** Bytes a session takes on disk on average, with room for the long sessions and folders. */
export const BYTES_PER_SESSION = 240 * 1024;
const DAY = 24 * 3600 * 1000;

/** A realistic store and what the rows measure in it. */
export interface RealisticStore extends BenchStore {
  /** The Codex-style state database of the same sessions. */
  readonly stateDb: string;
  /** A session of exactly 20 turns and one of `longTurns`, both in the workspace measured. */
  readonly short: { readonly id: string; readonly turns: number };
  readonly long: { readonly id: string; readonly turns: number };
}

/** Sessions `i` of the measured workspace (7) with a fixed length: the second has 20 turns, the first `longTurns`. */
const SHORT_SESSION = (workspaces: number) => 7 + workspaces;
const isLong = (i: number) => i % 487 === 7;

/** The cached realistic store of `count` sessions (generated now when missing). `longTurns`: LONG_TURNS, fewer in quick runs. */
export function realisticStore(count: number, workspaces: number, longTurns: number, shape: StoreShape, say: (line: string) => void): RealisticStore {
  const folder = storeFolder(count, workspaces, longTurns, shape);
  const stateDbOf = (root: string) => path.join(path.dirname(root), 'codex-state.sqlite');
  // The ids of the sessions measured (ids are monotonic in a process, not a function of the creation time).
  const measuredOf = (root: string) => path.join(path.dirname(root), 'measured.json');
  const store = cachedStoreOf({ folder, count, workspaces, bytesPerSession: BYTES_PER_SESSION }, say, (root, workspaceDir) => {
    say(`generating ${count} realistic sessions over ${workspaces} workspaces in ${path.dirname(root)}`);
    const measured = writeRealisticSessions(root, stateDbOf(root), { count, workspaces, longTurns, shape, workspaceDir, say });
    fs.writeFileSync(measuredOf(root), JSON.stringify(measured));
  });
  const measured = JSON.parse(fs.readFileSync(measuredOf(store.root), 'utf8')) as MeasuredSessions;
  return { ...store, stateDb: stateDbOf(store.root), ...measured };
}

/** The sessions the per-turn rows continue. */
export type MeasuredSessions = Pick<RealisticStore, 'short' | 'long'>;

/** What writeRealisticSessions writes: `count` sessions, session `i` in `workspaceDir(i % workspaces)`. */
export interface RealisticOptions {
  readonly count: number;
  readonly workspaces: number;
  readonly longTurns: number;
  readonly shape: StoreShape;
  workspaceDir(n: number): string;
  say(line: string): void;
}

/** Writes the sessions into the store `root` and their rows into the state database `stateDb`; the sessions measured. */
export function writeRealisticSessions(root: string, stateDb: string, options: RealisticOptions): MeasuredSessions {
  const threads: ThreadRow[] = [];
  for (let i = 0; i < options.count; i++) {
    threads.push(writeRealisticSession(root, i, options.workspaceDir(i % options.workspaces), options));
    if ((i + 1) % 1000 === 0) options.say(`  generated ${i + 1}/${options.count}`);
  }
  writeStateDatabase(stateDb, threads);
  return { short: { id: threads[SHORT_SESSION(options.workspaces)]!.id, turns: 20 }, long: { id: threads[7]!.id, turns: options.longTurns } };
}

/** Writes session `i` and returns its row of the state database. */
function writeRealisticSession(
  root: string,
  i: number,
  workspaceDir: string,
  options: { workspaces: number; longTurns: number; shape: StoreShape },
): ThreadRow {
  const next = random(1_000_003 * (i + 1));
  const turns = isLong(i) ? options.longTurns : i === SHORT_SESSION(options.workspaces) ? 20 : drawn(options.shape.turns, next);
  const created = createdAt(i);
  const id = newSessionId(created);
  const span = Math.floor(next() * 30 * DAY);
  const turnTs = (t: number) => created + Math.floor((span * t) / turns) + t;
  const planted = plantedIn(i, options.workspaces);
  const plantAt = 1 + Math.floor(next() * turns);
  const lines = [WireLogWriter.serialize({ t: 'agent', agentId: 'main', parentAgentId: null, purpose: 'main', sessionId: id, workspaceDir, ts: created }).line];
  let firstPrompt = '';
  let plantedYet = false;
  for (let t = 1; t <= turns; t++) {
    const records = shapedTurn(t, turnTs(t), options.shape.turn, next, wordsText);
    if (t >= plantAt && planted && !plantedYet) plantedYet = plant(records, planted);
    if (t === 1) firstPrompt = promptOf(records);
    for (const r of records) lines.push(WireLogWriter.serialize(r, turnTs(t)).line);
  }
  const title = titleOf(i);
  const key = workspaceKey(workspaceDir);
  writeSessionFolder(new StoreLayout(root).sessionDir(key, id), {
    id,
    workspaceDir,
    createdAt: created,
    title,
    archived: false,
    log: lines.join(''),
    lastUsed: turnTs(turns),
  });
  return { id, cwd: workspaceDir, title, createdAt: created, updatedAt: turnTs(turns), firstUserMessage: firstPrompt.slice(0, 500), tokens: turns * 2300 };
}

interface MessageRecord {
  readonly t: 'message';
  readonly message: { role: string; content: string | Array<{ type: string; text?: string }> };
}

/** The turn's message records, as the planting reads and changes them. */
const messages = (records: readonly NewRecord[]) => records.filter((r) => r.t === 'message') as unknown as MessageRecord[];

/** Puts the planted word in the turn's prompt, or in its first tool output; false when the turn has no tool output to hold it. */
function plant(records: readonly NewRecord[], where: 'prompt' | 'output'): boolean {
  if (where === 'prompt') {
    const prompt = messages(records).find((r) => r.message.role === 'user')!;
    prompt.message.content = `${PROMPT_WORD} ${String(prompt.message.content)}`;
    return true;
  }
  const output = messages(records).find((r) => r.message.role === 'toolResult');
  if (!output || !Array.isArray(output.message.content)) return false;
  const block = output.message.content[0]!;
  block.text = `${OUTPUT_WORD} ${block.text ?? ''}`;
  return true;
}

function promptOf(records: readonly NewRecord[]): string {
  const prompt = messages(records).find((r) => r.message.role === 'user');
  return typeof prompt?.message.content === 'string' ? prompt.message.content : '';
}

/** The cache folder of a realistic store, under the cache root. */
function storeFolder(count: number, workspaces: number, longTurns: number, shape: StoreShape): string {
  return `i${VERSION}-${shape.turn.source}/${count}-sessions-${workspaces}-workspaces-long-${longTurns}`;
}

/**
 * Whether the store of `count` sessions is there (generated whole before) or the disk can hold it
 * twice over; the sentence to refuse with when neither.
 */
export function roomFor(count: number, of: { workspaces: number; longTurns: number; shape: StoreShape }): string | undefined {
  if (storeIsCached(storeFolder(count, of.workspaces, of.longTurns, of.shape))) return undefined;
  const cacheDir = cacheRoot();
  fs.mkdirSync(cacheDir, { recursive: true });
  const stats = fs.statfsSync(cacheDir);
  const free = stats.bavail * stats.bsize;
  const needed = count * BYTES_PER_SESSION;
  if (free >= 2 * needed) return undefined;
  return `a store of ${count} sessions needs about ${(needed / 2 ** 30).toFixed(1)} GiB; ${(free / 2 ** 30).toFixed(1)} GiB are free in ${cacheDir}, less than twice that: not generating it`;
}
