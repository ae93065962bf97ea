// Appending worker: appends whole turns to one session (as fast as it can, or with a pause) and
// reports each turn whose turn_end is durable ("ended <prompt>"), until killed or done.
import fs from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../../../src/core/logger';
import { SessionStore } from '../../../src/core/store/sessionStore';
import { addTurn } from '../store';

async function main(): Promise<void> {
  const [root, sessionId, wasm, pauseMs, maxTurns] = process.argv.slice(2);
  const store = await SessionStore.open({ root: root!, wasmPath: wasm!, logger: silentLogger, saveDelayMs: 0 });
  // A restarted process takes the dead process's lease over and recovers what it left (an open turn).
  const writer = await store.openWriter(sessionId!);
  await writer.recover();
  fs.writeSync(1, 'ready\n');
  for (let n = 0; n < Number(maxTurns ?? Infinity); n++) {
    const prompt = `p${process.pid}-${n}`;
    await addTurn(writer, prompt, `answer ${n} ${'x'.repeat((n % 7) * 300)}`);
    fs.writeSync(1, `ended ${prompt}\n`);
    if (n % 5 === 0) await store.index.flush();
    if (pauseMs) await new Promise((resolve) => setTimeout(resolve, Number(pauseMs)));
  }
  await writer.close();
  await store.close();
}

main().catch((err: unknown) => {
  fs.writeSync(2, `${path.basename(__filename)}: ${(err as Error).stack}\n`);
  process.exit(1);
});
