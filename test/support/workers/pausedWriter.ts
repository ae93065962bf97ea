// A writer paused mid-turn while another process takes its lease over. It takes the session's
// lease, begins a turn with its prompt, then pauses, in one of three places:
//   between  between two writes: prints "began <turn>" and waits for a line on stdin (the test
//            stops it with SIGSTOP meanwhile, lets another process take over, continues it);
//   log      after the lease check of its next append passed, inside fs.writeSync, for `pauseMs`;
//   state    after the lease check of its next state.json write passed, inside fs.renameSync.
// ("in the window" is printed before the last two sleep; they sleep without running the event
// loop, so no renewal happens, as in a stopped process.) Then it tries to go on (append the
// answer, write state.json, end the turn) and prints what each attempt did as one JSON line.
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { silentLogger } from '../../../src/core/logger';
import { SessionStore } from '../../../src/core/store/sessionStore';
import { assistantMessage, userMessage } from '../store';

async function attempt(what: () => Promise<unknown>): Promise<string | null> {
  try {
    await what();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

function stall(ms: number): void {
  fs.writeSync(1, 'in the window\n');
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Makes the next call of fs[name] that `matches` sleep first: after the check that guards it. */
function pauseInside(name: 'writeSync' | 'renameSync', matches: (args: unknown[]) => boolean, ms: number): void {
  const original = fs[name] as (...args: unknown[]) => unknown;
  let armed = true;
  (fs as Record<string, unknown>)[name] = (...args: unknown[]) => {
    if (armed && matches(args)) {
      armed = false;
      stall(ms);
    }
    return original(...args);
  };
}

async function main(): Promise<void> {
  const [root, sessionId, wasm, where, pauseMs] = process.argv.slice(2);
  const store = await SessionStore.open({ root: root!, wasmPath: wasm!, logger: silentLogger, saveDelayMs: 0 });
  const writer = await store.openWriter(sessionId!);
  const turn = await writer.beginTurn('p-paused', null);
  await writer.appendMessage(userMessage('the paused prompt'));
  if (where === 'between') {
    const lines = readline.createInterface({ input: process.stdin });
    const go = new Promise<void>((resolve) => lines.once('line', () => resolve()));
    fs.writeSync(1, `began ${turn}\n`);
    await go;
    lines.close();
  } else if (where === 'log') {
    pauseInside('writeSync', (args) => (args[0] as number) > 2, Number(pauseMs));
  } else {
    pauseInside('renameSync', (args) => String(args[1]).endsWith('state.json'), Number(pauseMs));
  }
  const append = () => attempt(() => writer.appendMessage(assistantMessage('the paused answer')));
  const state = () => attempt(() => writer.updateState((s) => ({ ...s, title: 'written by the paused writer' })));
  // The attempt paused inside goes first.
  const first = where === 'state' ? { state: await state(), append: await append() } : { append: await append(), state: await state() };
  const result = { ...first, end: await attempt(() => writer.endTurn('completed')) };
  fs.writeSync(1, `${JSON.stringify(result)}\n`);
  await writer.close();
  await store.close();
}

main().catch((err: unknown) => {
  fs.writeSync(2, `${path.basename(__filename)}: ${(err as Error).stack}\n`);
  process.exit(1);
});
