// Load worker, the CLI's side: for a given time runs `braid` commands on a store shared with
// other processes (each command opens and closes the store, as a shell would run them): list,
// search, show, export, rename, archive/restore, fork, delete and undelete of sessions it lists.
// A command may fail only with a clear one-line message about a session another process is
// changing at that instant. Prints a JSON summary like the extension-host worker's.
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../../../src/cli/run';
import { safeReaddir } from '../../../src/core/fs/probe';
import { isSessionId } from '../../../src/core/ids';

interface Listed {
  id: string;
  archived: boolean;
}

async function main(): Promise<void> {
  const [root, name, wasm, seconds] = process.argv.slice(2);
  const deadline = Date.now() + Number(seconds) * 1000;
  const latencies: Record<string, number[]> = {};
  const counts: Record<string, number> = { raced: 0 };
  const made: string[] = [];
  const braid = async (op: string, args: string[]): Promise<string | undefined> => {
    let out = '';
    let err = '';
    const started = performance.now();
    const code = await runCli(['--data-dir', root!, ...args], {
      stdout: { write: (t: string) => (out += t) },
      stderr: { write: (t: string) => (err += t) },
      env: {},
      wasmPath: wasm!,
    });
    (latencies[`cli ${op}`] ??= []).push(performance.now() - started);
    if (code === 0) {
      counts[`cli ${op}`] = (counts[`cli ${op}`] ?? 0) + 1;
      return out;
    }
    // Another process deleted, restored or is writing that session right now.
    if (
      code === 1 &&
      /^braid: .*(does not exist|not found|is being written|in the trash|exists already|just now)/i.test(err) &&
      err.split('\n').filter(Boolean).length === 1
    ) {
      counts.raced!++;
      return undefined;
    }
    throw new Error(`braid ${args.join(' ')} exited ${code}: ${err}`);
  };
  let n = 0;
  while (Date.now() < deadline) {
    n++;
    const listed = JSON.parse((await braid('list', ['list', '--all', '--json'])) ?? '[]') as Listed[];
    const archived = JSON.parse((await braid('list', ['list', '--all', '--archived', '--json'])) ?? '[]') as Listed[];
    const all = [...listed, ...archived];
    const target = all[Math.floor(Math.random() * all.length)];
    const roll = Math.random();
    if (!target) {
      await new Promise((resolve) => setTimeout(resolve, 50)); // nothing created yet
      continue;
    }
    if (roll < 0.15) await braid('show', ['show', target.id, '--json']);
    else if (roll < 0.25) await braid('search', ['search', 'prompt', '--all', '--json']);
    else if (roll < 0.35) await braid('export', ['export', target.id, '--format', 'md']);
    else if (roll < 0.55) await braid('rename', ['rename', target.id, `${name} renamed ${n}`]);
    else if (roll < 0.7) await braid(target.archived ? 'restore' : 'archive', [target.archived ? 'restore' : 'archive', target.id]);
    else if (roll < 0.82) {
      const out = await braid('fork', ['fork', target.id, '--json']);
      if (out) made.push((JSON.parse(out) as { id: string }).id);
    } else if (roll < 0.94) await braid('delete', ['delete', target.id]);
    else {
      const trash = path.join(root!, 'trash');
      const id = safeReaddir(trash)
        .flatMap((w) => safeReaddir(path.join(trash, w)))
        .find(isSessionId);
      if (id) await braid('undelete', ['undelete', id]);
    }
  }
  fs.writeSync(1, `${JSON.stringify({ name, counts, made, latencies })}\n`);
}

main().catch((err: unknown) => {
  fs.writeSync(2, `${(err as Error).stack}\n`);
  process.exit(1);
});
