// Fork worker: forks one session again and again (whole, or at a random turn) until killed,
// printing "forked <id>" after each fork is published.
import fs from 'node:fs';
import { silentLogger } from '../../../src/core/logger';
import { forkSession } from '../../../src/core/store/fork';
import { SessionStore } from '../../../src/core/store/sessionStore';

async function main(): Promise<void> {
  const [root, sessionId, wasm, turns] = process.argv.slice(2);
  const store = await SessionStore.open({ root: root!, wasmPath: wasm!, logger: silentLogger, saveDelayMs: 0 });
  // One fork made and removed first (the index loaded, the code compiled), so the forks the kill
  // lands in take what a fork takes, not a cold start's time, on a busy machine too.
  const warm = await forkSession(store, sessionId!, {});
  fs.rmSync(store.locate(warm.id), { recursive: true, force: true });
  store.index.removeSession(warm.id);
  await store.index.flush();
  fs.writeSync(1, 'ready\n');
  for (;;) {
    const pick = Math.floor(Math.random() * (Number(turns) + 1));
    const fork = await forkSession(store, sessionId!, pick === 0 ? {} : { turn: pick });
    fs.writeSync(1, `forked ${fork.id}\n`);
  }
}

main().catch((err: unknown) => {
  fs.writeSync(2, `${(err as Error).stack}\n`);
  process.exit(1);
});
