// Load worker, extension-host-like: for a given time, on a store shared with other processes,
// creates sessions and appends turns to its own (holding their writers, as an open chat does),
// and renames, archives, restores, forks, deletes and undeletes any session it sees (others'
// included). Prints a JSON summary: what it did, the sessions it created, and each operation's
// latencies in milliseconds.
import fs from 'node:fs';
import { silentLogger } from '../../../src/core/logger';
import { forkSession } from '../../../src/core/store/fork';
import { SessionStore } from '../../../src/core/store/sessionStore';
import { SessionNotFoundError } from '../../../src/core/store/errors';
import type { SessionWriter } from '../../../src/core/store/sessionWriter';
import { SessionBusyError } from '../../../src/core/store/writerLease';
import { addTurn } from '../store';

/** Errors a shared store may give when another process changes a session at the same instant. */
const isRace = (err: unknown) =>
  err instanceof SessionBusyError || err instanceof SessionNotFoundError || /exists already|not in the trash/.test((err as Error).message);

async function main(): Promise<void> {
  const [root, name, wasm, seconds] = process.argv.slice(2);
  const store = await SessionStore.open({ root: root!, wasmPath: wasm!, logger: silentLogger, watch: true, saveDelayMs: 20 });
  const deadline = Date.now() + Number(seconds) * 1000;
  const writers = new Map<string, SessionWriter>();
  const made: string[] = [];
  const latencies: Record<string, number[]> = {};
  const counts: Record<string, number> = { raced: 0 };
  const timed = async (op: string, work: () => Promise<unknown>) => {
    const started = performance.now();
    await work();
    (latencies[op] ??= []).push(performance.now() - started);
    counts[op] = (counts[op] ?? 0) + 1;
  };
  let n = 0;
  while (Date.now() < deadline) {
    n++;
    // Between operations the event loop runs (timers: index saves, lease renewals), as in an extension host.
    await new Promise((resolve) => setImmediate(resolve));
    const roll = Math.random();
    const visible = [...store.index.list({}), ...store.index.list({ archived: true })];
    const target = visible[Math.floor(Math.random() * visible.length)];
    try {
      if (roll < 0.1 || writers.size === 0) {
        await timed('create', async () => {
          const s = await store.create({ workspaceDir: `/load/${['one', 'two', 'three'][n % 3]}` });
          made.push(s.id);
          writers.set(s.id, await store.openWriter(s.id));
        });
      } else if (roll < 0.5) {
        const own = [...writers.values()][Math.floor(Math.random() * writers.size)]!;
        await timed('append turn', () => addTurn(own, `${name} prompt ${n}`, `answer ${n}`));
      } else if (!target) {
        continue;
      } else if (roll < 0.62) {
        await timed('rename', () => store.rename(target.id, `${name} renamed ${n}`));
      } else if (roll < 0.72) {
        await timed(target.archived ? 'restore' : 'archive', () => (target.archived ? store.restore(target.id) : store.archive(target.id)));
      } else if (roll < 0.82) {
        await timed('fork', async () => made.push((await forkSession(store, target.id, { title: `${name} fork ${n}` })).id));
      } else if (roll < 0.94) {
        // Deleting a session this process writes closes it first, as the chat does.
        const own = writers.get(target.id);
        if (own) {
          await own.close();
          writers.delete(target.id);
        }
        await timed('delete', () => store.delete(target.id));
      } else {
        const trashed = store.listTrash()[0];
        if (trashed) await timed('undelete', () => store.undelete(trashed.id));
      }
    } catch (err) {
      // A session another process is changing at this instant may be busy or gone; nothing is lost.
      if (!isRace(err)) throw err;
      counts.raced!++;
    }
  }
  for (const writer of writers.values()) await writer.close();
  await store.close();
  fs.writeSync(1, `${JSON.stringify({ name, counts, made, latencies })}\n`);
}

main().catch((err: unknown) => {
  fs.writeSync(2, `${(err as Error).stack}\n`);
  process.exit(1);
});
