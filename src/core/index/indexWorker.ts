// The entry of the index's worker thread (bundled as dist/indexWorker.js): for each main log it is
// sent, reads it and posts the log made ready for the index (preparedLog.ts), or why it could not.
import fs from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../errors';
import { prepareLog } from './preparedLog';
import type { PrepareAnswer, PrepareJob } from './logPreparer';

const post = (answer: PrepareAnswer) => parentPort!.postMessage(answer);
parentPort!.on('message', (job: PrepareJob) => {
  try {
    post({ id: job.id, log: prepareLog(fs.readFileSync(job.file)) });
  } catch (err) {
    post({ id: job.id, error: errorMessage(err) });
  }
});
