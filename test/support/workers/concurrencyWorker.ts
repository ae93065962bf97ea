// Concurrency worker: for a given time, creates sessions, appends turns to its own, and renames,
// archives and restores any session it sees (others' included), on a store shared with other
// processes. Prints a JSON summary of what it did.
import fs from 'node:fs';
import { silentLogger } from '../../../src/core/logger';
import { SessionStore } from '../../../src/core/store/sessionStore';
import type { SessionWriter } from '../../../src/core/store/sessionWriter';
import { addTurn } from '../store';

async function main(): Promise<void> {
  const [root, name, wasm, seconds] = process.argv.slice(2);
  const store = await SessionStore.open({ root: root!, wasmPath: wasm!, logger: silentLogger, watch: true, saveDelayMs: 20 });
  const deadline = Date.now() + Number(seconds) * 1000;
  const writers = new Map<string, SessionWriter>();
  const counts = { created: 0, turns: 0, renamed: 0, archived: 0, restored: 0, raced: 0 };
  let n = 0;
  while (Date.now() < deadline) {
    n++;
    const roll = Math.random();
    try {
      if (roll < 0.15 || writers.size === 0) {
        const s = await store.create({ workspaceDir: `/concurrency/${['one', 'two', 'three'][n % 3]}` });
        writers.set(s.id, await store.openWriter(s.id));
        counts.created++;
      } else if (roll < 0.6) {
        const own = [...writers.values()][Math.floor(Math.random() * writers.size)]!;
        await addTurn(own, `${name} prompt ${n}`, `answer ${n}`);
        counts.turns++;
      } else {
        const visible = [...store.index.list({}), ...store.index.list({ archived: true })];
        const target = visible[Math.floor(Math.random() * visible.length)];
        if (!target) continue;
        if (roll < 0.8) {
          await store.rename(target.id, `${name} renamed ${n}`);
          counts.renamed++;
        } else if (target.archived) {
          await store.restore(target.id);
          counts.restored++;
        } else {
          await store.archive(target.id);
          counts.archived++;
        }
      }
    } catch (err) {
      // A session another process is changing at this instant may be busy; nothing is lost.
      counts.raced++;
      if (!/held by process/.test((err as Error).message)) throw err;
    }
  }
  for (const writer of writers.values()) await writer.close();
  await store.close();
  fs.writeSync(1, `${JSON.stringify({ name, ...counts, own: [...writers.keys()] })}\n`);
}

main().catch((err: unknown) => {
  fs.writeSync(2, `${(err as Error).stack}\n`);
  process.exit(1);
});
