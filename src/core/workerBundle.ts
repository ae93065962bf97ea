import path from 'node:path';

/** Braid's worker threads, each a bundle of its own started by file name. */
export type WorkerName = 'toolWorker' | 'indexWorker';

/**
 * Where a worker thread's bundle is: next to the bundle that runs this code (dist/<name>.js), or
 * in the folder BRAID_WORKER_DIR names (the test runner bundles them there, as <name>.cjs).
 */
export function workerBundle(name: WorkerName): string {
  const dir = process.env.BRAID_WORKER_DIR;
  return dir ? path.join(dir, `${name}.cjs`) : path.join(__dirname, `${name}.js`);
}
