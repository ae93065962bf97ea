// Fault worker: repeats one kind of store operation on a shared root until it is killed, printing a
// line after each one is durable, so the test that kills it knows what must have survived.
//   state  <id>      renames the session and archives/restores it ("titled <n>", "archived <bool>")
//   index  -         creates sessions and saves the index after each ("saved <id>")
//   rewind <id>      rewinds with files to a random prompt, then undoes it ("rewound", "undone")
//   trash  <id>      moves the session to the trash and back ("deleted", "undeleted")
//   quarantine <id>  adds a turn with a large answer ("turned <prompt>"), puts a line cut short
//                    after it ("damaged <line>"), and runs doctor --fix ("repaired")
import fs from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../../../src/core/logger';
import { RewindError, rewindSession, undoRewind } from '../../../src/core/store/rewind';
import { SessionStore } from '../../../src/core/store/sessionStore';
import { runDoctor } from '../../../src/core/store/doctor';
import { addTurn } from '../store';

const say = (line: string) => fs.writeSync(1, `${line}\n`);

async function main(): Promise<void> {
  const [root, kind, sessionId, wasm] = process.argv.slice(2);
  const store = await SessionStore.open({ root: root!, wasmPath: wasm!, logger: silentLogger, saveDelayMs: 0 });
  if (kind !== 'index') {
    // The previous run was killed: take its lease over (finishing what it left half done) and go on.
    const writer = await store.openWriter(sessionId!);
    await writer.close();
    // A rewind whose undo the kill prevented is undone first, so there is always something to rewind.
    if (kind === 'rewind')
      await undoRewind(store, sessionId!).catch((err: unknown) => {
        if (!(err instanceof RewindError)) throw err;
      });
  }
  say('ready');
  for (let n = 1; ; n++) {
    if (kind === 'state') {
      await store.rename(sessionId!, `title ${n}`);
      say(`titled ${n}`);
      if (n % 3 === 0) say(`archived ${(await (store.get(sessionId!).archived ? store.restore(sessionId!) : store.archive(sessionId!))).archived}`);
    } else if (kind === 'index') {
      const session = await store.create({ workspaceDir: `/index-crash/${n % 4}` });
      await store.index.flush();
      say(`saved ${session.id}`);
    } else if (kind === 'rewind') {
      const prompts = store.history(sessionId!).messages.filter((m) => m.message.role === 'user');
      const target = prompts[1 + Math.floor(Math.random() * (prompts.length - 1))]!;
      await rewindSession(store, sessionId!, target.id, { files: true });
      say('rewound');
      await undoRewind(store, sessionId!);
      say('undone');
    } else if (kind === 'quarantine') {
      const prompt = `turn ${process.pid}-${n}`;
      const writer = await store.openWriter(sessionId!);
      await writer.recover(); // a turn a kill left open ends `interrupted`, as a Session opening it would
      await addTurn(writer, prompt, 'a large answer '.repeat(20_000));
      await writer.close();
      say(`turned ${prompt}`);
      const junk = `junk ${process.pid}-${n} {"v":1,"t":"message","cut sh`;
      fs.appendFileSync(store.layout.agentLog(store.locate(sessionId!)), `${junk}\n`);
      say(`damaged ${junk}`);
      await runDoctor(store, { fix: true });
      say('repaired');
    } else if (kind === 'trash') {
      await store.delete(sessionId!);
      say('deleted');
      await store.undelete(sessionId!);
      say('undeleted');
    } else {
      throw new Error(`unknown kind ${kind}`);
    }
  }
}

main().catch((err: unknown) => {
  fs.writeSync(2, `${path.basename(__filename)}: ${(err as Error).stack}\n`);
  process.exit(1);
});
