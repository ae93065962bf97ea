// The peers' measures, run in a lean child process (programs/peerMeasures.ts) so their peak memory
// is theirs, not a bundle's: listing and search on the same folders as Braid, the floor of an
// index rebuild, and whole durable turns of the whole-history pattern. Each measure resets the
// process's peak memory first.
import fs from 'node:fs';
import path from 'node:path';
import { realisticTurnRecords } from './generate';
import { timed, type Results } from './memory';
import { listByHeadAndStat, listNewestFirst, listReadingEveryLog, readHead, sameAsTruth, searchByScanning, type Listed } from './peers/listing';
import { WholeHistoryPeer } from './peers/patterns';

/** The floor of a rebuild: every state.json read and parsed, and every log read to the end of its first turn. */
export async function rebuildFloor(sessionsDir: string): Promise<Results> {
  let sessions = 0;
  const floor = await timed(1, () => {
    for (const key of fs.readdirSync(sessionsDir)) {
      const folder = path.join(sessionsDir, key);
      if (!fs.statSync(folder).isDirectory()) continue;
      for (const id of fs.readdirSync(folder)) {
        if (!id.startsWith('ses_')) continue;
        JSON.parse(fs.readFileSync(path.join(folder, id, 'state.json'), 'utf8'));
        readHead(path.join(folder, id, 'agents', 'main', 'wire.jsonl'));
        sessions++;
      }
    }
  });
  return { floor: { ...floor, detail: `${sessions} sessions` } };
}

/**
 * The peers on the current workspace's folder, each after a warm-up run: (a1) every log read,
 * (a2) heads and stats, (a3) newest first, stopping after 100; (s) a search by scanning every
 * log. Across every workspace: (a3) over the whole store, and (s) over every log, once (at 100k
 * sessions that reads about 9 GB). A listing's detail says how many of its page are among the 50
 * most recently used.
 */
export async function peers(current: string, all: readonly string[], queries: readonly string[], runs: number): Promise<Results> {
  const out: Results = {};
  const truth = listReadingEveryLog([current], 50);
  const listing = async (name: string, fn: () => Listed[]) => {
    fn();
    out[name] = { ...(await timed(runs, fn)), detail: `${sameAsTruth(fn(), truth)}/${truth.length} of the most recent` };
  };
  await listing('a3', () => listNewestFirst([current], 50));
  await listing('a2', () => listByHeadAndStat([current], 50));
  await listing('a1', () => listReadingEveryLog([current], 50));
  for (const [i, q] of queries.entries()) {
    searchByScanning([current], q, 50);
    out[`search${i}`] = { ...(await timed(runs, () => searchByScanning([current], q, 50))), detail: `${searchByScanning([current], q, 50).length} hits` };
  }
  out.a3All = await timed(runs, () => listNewestFirst(all, 50));
  for (const [i, q] of queries.entries()) out[`searchAll${i}`] = await timed(1, () => searchByScanning(all, q, 50));
  return out;
}

/** The messages of realistic turn `turn` (6: prompt, two tool calls with results, answer). */
function messagesOf(turn: number): object[] {
  return realisticTurnRecords(turn, 1_000_000 + turn, Date.now()).flatMap((r) => (r.t === 'message' ? [r.message] : []));
}

/** The peer (b): a session of `earlier` realistic turns in a global list of `sessions`, then `runs` whole turns timed. */
export async function peerTurns(dir: string, sessions: number, earlier: number, runs: number): Promise<Results> {
  const history = Array.from({ length: earlier }, (_, i) => messagesOf(i + 1)).flat();
  const peer = new WholeHistoryPeer(dir, sessions, history);
  let turn = earlier;
  const figure = await timed(runs, () => peer.turn(messagesOf(++turn)));
  fs.rmSync(dir, { recursive: true, force: true });
  return { turn: figure };
}
