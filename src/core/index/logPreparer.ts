import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import { workerBundle } from '../workerBundle';
import { prepareLog, type PreparedLog } from './preparedLog';

/** A main log for the worker to make ready: the file it reads. */
export interface PrepareJob {
  readonly id: number;
  readonly file: string;
}

/** The worker's answer to a job: the log made ready, or why it could not be. */
export type PrepareAnswer = { readonly id: number; readonly log: PreparedLog } | { readonly id: number; readonly error: string };

/**
 * Makes main logs ready for the index (preparedLog.ts) on a worker thread, while the thread that
 * wrote them goes on: a pull's logs are folded and their words found on another core. A log the
 * worker could not read, or was still reading when it stopped, resolves as undefined: the index
 * then reads the log itself, as for any session. Without the worker (its bundle missing, or it
 * stopped) logs are made ready on this thread, from the bytes in hand. `close` ends the thread.
 */
export class LogPreparer {
  /** Started with the first log (a pull with nothing new starts none); null once it is gone or its bundle is missing. */
  private worker: Worker | null | undefined;
  private readonly waiting = new Map<number, (log: PreparedLog | undefined) => void>();
  private nextId = 0;

  /** The main log `file` (whose bytes are `pieces`) made ready, once the worker has read it. */
  prepare(file: string, pieces: readonly Buffer[]): Promise<PreparedLog | undefined> {
    if (this.worker === undefined) this.worker = this.start();
    const worker = this.worker;
    if (!worker) return Promise.resolve(prepareLog(Buffer.concat(pieces)));
    const id = this.nextId++;
    const job: PrepareJob = { id, file };
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      worker.postMessage(job);
    });
  }

  private start(): Worker | null {
    const file = workerBundle('indexWorker');
    if (!fs.existsSync(file)) return null;
    const worker = new Worker(file);
    worker.on('message', (answer: PrepareAnswer) => this.settle(answer.id, 'log' in answer ? answer.log : undefined));
    worker.on('error', () => this.stop());
    worker.on('exit', () => this.stop());
    return worker;
  }

  /** Ends the worker; logs not made ready yet resolve as undefined. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.stop();
    await worker?.terminate();
  }

  private settle(id: number, log: PreparedLog | undefined): void {
    this.waiting.get(id)?.(log);
    this.waiting.delete(id);
  }

  /** The worker is gone: what it was asked resolves as undefined, and nothing more is sent to it. */
  private stop(): void {
    this.worker = null;
    for (const id of [...this.waiting.keys()]) this.settle(id, undefined);
  }
}
