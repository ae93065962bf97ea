import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { workerBundle } from '../../workerBundle';
import { ToolError } from '../workspaceFs';
import type { JobMessage, ToolJob } from './jobs';

/** What a job found before it ended, hit its limit, or ran out of time. */
export interface JobResult {
  readonly items: string[];
  /** Stopped at its limit of results. */
  readonly truncated: boolean;
  /** Stopped by its deadline: `items` holds what was found until then. */
  readonly timedOut: boolean;
}

/**
 * Runs a search job in a worker thread with a deadline. The thread is terminated at the deadline
 * (the result says so, with what was found) or when `signal` aborts (ToolError "cancelled"): a
 * regular expression that backtracks for hours cannot hold up the session, Stop or Ctrl-C.
 */
export function runToolJob(job: ToolJob, options: { timeoutMs: number; signal?: AbortSignal }): Promise<JobResult> {
  const file = workerBundle('toolWorker');
  if (!fs.existsSync(file))
    return Promise.reject(new Error(`Braid's search worker is missing (${path.basename(file)} next to the extension's bundle); reinstall Braid`));
  if (options.signal?.aborted) return Promise.reject(new ToolError('cancelled'));
  return new Promise((resolve, reject) => {
    const items: string[] = [];
    const worker = new Worker(file, { workerData: job });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      fn();
    };
    const timer = setTimeout(() => settle(() => resolve({ items, truncated: false, timedOut: true })), options.timeoutMs);
    const onAbort = () => settle(() => reject(new ToolError('cancelled')));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (message: JobMessage) => {
      if (message.type === 'item') items.push(message.text);
      else if (message.type === 'done') settle(() => resolve({ items, truncated: message.truncated, timedOut: false }));
      else settle(() => reject(message.toolError ? new ToolError(message.message) : new Error(message.message)));
    });
    worker.on('error', (err) => settle(() => reject(err)));
    worker.on('exit', (code) => settle(() => reject(new Error(`the search worker stopped unexpectedly (exit code ${code})`))));
  });
}
