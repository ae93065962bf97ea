import { parentPort, workerData } from 'node:worker_threads';
import { errorMessage } from '../../errors';
import { ToolError } from '../workspaceFs';
import { runJob, type JobMessage, type ToolJob } from './jobs';

// The entry of the search tools' worker thread (bundled as dist/toolWorker.js): runs one job,
// posting its result lines as they are found, then `done` (or `error`).
const post = (message: JobMessage) => parentPort!.postMessage(message);
try {
  const truncated = runJob(workerData as ToolJob, (text) => post({ type: 'item', text }));
  post({ type: 'done', truncated });
} catch (err) {
  post({ type: 'error', message: errorMessage(err), toolError: err instanceof ToolError });
}
