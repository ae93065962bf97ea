// The measurements, each run in a fresh child process so its peak memory is its own.
import fs from 'node:fs';
import path from 'node:path';
import Module from 'node:module';
import { SessionIndex } from '../src/core/index/sessionIndex';
import { silentLogger } from '../src/core/logger';
import { StoreLayout } from '../src/core/format/layout';
import { SessionStore } from '../src/core/store/sessionStore';
import { forkSession } from '../src/core/store/fork';
import { rewindSession } from '../src/core/store/rewind';
import { readContextTail } from '../src/core/wire/contextTail';
import { readNewestPage } from '../src/core/wire/newestPage';
import { HistoryBuilder } from '../src/core/wire/replay';
import { scanWireLog } from '../src/core/wire/wireReader';
import { workspaceKey } from '../src/core/workspace/workspaceKey';
import { copyWithFsync, listByReadingEveryLog, openByParsingWholeLog, parseEveryLine, readRange } from './peers/patterns';

/** A measurement's result: the median time of its runs and the process's peak memory. */
export interface Measured {
  ms: number;
  peakMb: number;
  detail?: string;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Peak resident memory of this process in MB. VmHWM from /proc is this process image's own high
 * water mark; getrusage's maxRSS would also count the parent's memory at fork time on Linux.
 */
export function peakRssMb(): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]) / 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS / 1024;
}

async function timed(runs: number, fn: () => unknown | Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await fn();
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(times);
}

/**
 * The index of a fork or rewind is saved when the store closes, after the clock stops: a window
 * saves it 100 ms after the change, off the operation's path, and a save left by one timed run
 * must not land in the next.
 */
const AFTER_THE_CLOCK = 10 * 60 * 1000;

const openIndex = (root: string, wasmPath: string) => SessionIndex.open({ layout: new StoreLayout(root), wasmPath, logger: silentLogger });

/** Loads the built extension bundle with a stand-in `vscode` module (nothing of it runs before activate). */
function loadExtensionBundle(bundle: string): void {
  const resolve = (Module as unknown as { _resolveFilename: (r: string, ...a: unknown[]) => string })._resolveFilename;
  const stub = path.join(path.dirname(bundle), '__vscode_stub__.js');
  (Module as unknown as { _resolveFilename: (r: string, ...a: unknown[]) => string })._resolveFilename = (request: string, ...rest: unknown[]) =>
    request === 'vscode' ? stub : resolve(request, ...rest);
  require.cache[stub] = { id: stub, filename: stub, loaded: true, exports: {} } as NodeJS.Module;
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the bundle must load as CommonJS, through the stub just put in require.cache
  require(bundle);
}

/** Runs one measurement kind; the parent calls this in a child process. */
export async function measure(kind: string, args: string[], wasmPath: string): Promise<Measured> {
  const [target, extra] = args;
  switch (kind) {
    case 'rebuild': {
      fs.rmSync(path.join(target!, 'index.sqlite'), { force: true });
      const ms = await timed(1, async () => (await openIndex(target!, wasmPath)).close());
      return { ms, peakMb: peakRssMb() };
    }
    case 'index-load': {
      const ms = await timed(1, async () => (await openIndex(target!, wasmPath)).close());
      return { ms, peakMb: peakRssMb() };
    }
    case 'list': {
      const index = await openIndex(target!, wasmPath);
      const key = workspaceKey(extra!);
      const ms = await timed(50, () => index.list({ workspaceKey: key, limit: 50 }));
      return { ms, peakMb: peakRssMb(), detail: `${index.list({ workspaceKey: key, limit: 50 }).length} rows` };
    }
    case 'search': {
      const index = await openIndex(target!, wasmPath);
      const ms = await timed(50, () => index.search(extra!, { limit: 50 }));
      return { ms, peakMb: peakRssMb(), detail: `${index.search(extra!, { limit: 50 }).length} hits` };
    }
    case 'peer-list': {
      const ms = await timed(3, () => listByReadingEveryLog(path.join(target!, 'sessions'), extra!, 50));
      return { ms, peakMb: peakRssMb() };
    }
    case 'activation': {
      const ms = await timed(1, async () => {
        loadExtensionBundle(extra!);
        // As src/extension.ts opens it: this workspace's index now, the others' when a view asks.
        const key = workspaceKey('/bench/workspace-7');
        const store = await SessionStore.open({ root: target!, wasmPath, logger: silentLogger, workspaceKey: key, watch: true, verifyAfterMs: 5_000 });
        store.index.list({ workspaceKey: key, limit: 50 });
        await store.close();
      });
      return { ms, peakMb: peakRssMb() };
    }
    case 'bundle-load':
      return { ms: await timed(1, () => loadExtensionBundle(target!)), peakMb: peakRssMb() };
    case 'page':
      return { ms: await timed(5, () => readNewestPage(target!, 80)), peakMb: peakRssMb() };
    case 'open-peer':
      return { ms: await timed(3, () => openByParsingWholeLog(target!, 80)), peakMb: peakRssMb() };
    case 'replay':
      return {
        ms: await timed(3, () => {
          const b = new HistoryBuilder();
          scanWireLog(target!, (r) => b.add(r));
          return b.build();
        }),
        peakMb: peakRssMb(),
      };
    case 'context':
      return { ms: await timed(3, () => readContextTail(target!)), peakMb: peakRssMb() };
    case 'floor':
      return { ms: await timed(3, () => parseEveryLine(target!)), peakMb: peakRssMb() };
    case 'fork': {
      const store = await SessionStore.open({ root: target!, wasmPath, logger: silentLogger, saveDelayMs: AFTER_THE_CLOCK });
      const [id, turn] = extra!.split(':');
      store.locate(id!); // the workspace's index is loaded before the clock starts, as in a window that shows the session
      const ms = await timed(3, () => forkSession(store, id!, { turn: Number(turn) }));
      await store.close();
      return { ms, peakMb: peakRssMb() };
    }
    case 'rewind': {
      const store = await SessionStore.open({ root: target!, wasmPath, logger: silentLogger, saveDelayMs: AFTER_THE_CLOCK });
      const [id, , promptId] = extra!.split(':');
      store.locate(id!); // the workspace's index is loaded before the clock starts, as in a window that shows the session
      const ms = await timed(1, () => rewindSession(store, id!, promptId!, { files: false }));
      await store.close();
      return { ms, peakMb: peakRssMb() };
    }
    case 'copy':
      return { ms: await timed(3, () => copyWithFsync(target!, `${target}.copy`, Number(extra))), peakMb: peakRssMb() };
    case 'read-range':
      return { ms: await timed(3, () => readRange(target!, Number(extra))), peakMb: peakRssMb() };
    default:
      throw new Error(`unknown measurement ${kind}`);
  }
}
