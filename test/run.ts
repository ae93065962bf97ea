// The test runner: bundles the specs of a suite with esbuild (as the product is bundled), then
// runs them with Node's built-in test runner, whose summary lines it prints.
// Usage: node scripts/run-ts.mjs test/run.ts unit|faults|e2e [--long] [name-filter]
// `--long` runs the fault suite's long mode (hundreds of trials per fault kind, a minute of load);
// without it the suite runs its bounded quick mode, as `npm test` does.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { bundleForNode, stopBundling } from '../scripts/bundle-node.mjs';

const root = path.resolve(__dirname, '..', '..', '..');
const suites = {
  unit: { dir: 'test/unit', suffix: '.test.ts', concurrency: 2, timeoutMs: 60_000 },
  faults: { dir: 'test/faults', suffix: '.test.ts', concurrency: 2, timeoutMs: 1_800_000 },
  e2e: { dir: 'test/e2e', suffix: '.e2e.ts', concurrency: 1, timeoutMs: 600_000 },
} as const;

function findSpecs(dir: string, suffix: string): string[] {
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findSpecs(full, suffix));
    else if (entry.name.endsWith(suffix)) found.push(full);
  }
  return found.sort();
}

async function main(): Promise<number> {
  const argv = process.argv.slice(2);
  const long = argv.includes('--long');
  const [suiteName, filter] = argv.filter((a) => a !== '--long');
  if (suiteName !== 'unit' && suiteName !== 'faults' && suiteName !== 'e2e') {
    console.error('usage: test/run.ts unit|faults|e2e [--long] [name-filter]');
    return 2;
  }
  const suite = suites[suiteName];
  const specs = findSpecs(path.join(root, suite.dir), suite.suffix).filter((f) => !filter || f.includes(filter));
  if (specs.length === 0) {
    console.error(`no ${suiteName} specs found${filter ? ` matching "${filter}"` : ''}`);
    return 1;
  }
  const outdir = path.join(root, 'out', 'test', suiteName);
  fs.rmSync(outdir, { recursive: true, force: true });
  const entryPoints = Object.fromEntries(specs.map((f) => [path.relative(path.join(root, suite.dir), f).replace(/\.ts$/, ''), f]));
  await bundleForNode(entryPoints, outdir);
  // Child-process programs that tests spawn (crash and concurrency workers) are bundled the same way.
  const workers = findSpecs(path.join(root, 'test', 'support', 'workers'), '.ts');
  if (workers.length) {
    await bundleForNode(Object.fromEntries(workers.map((f) => [path.basename(f, '.ts'), f])), path.join(root, 'out', 'test', 'workers'));
  }
  // The worker threads, started by file name from the code under test (src/core/workerBundle.ts).
  const workerDir = path.join(root, 'out', 'test', 'workerThreads');
  const workerThreads = { toolWorker: 'src/core/tools/worker/toolWorker.ts', indexWorker: 'src/core/index/indexWorker.ts' };
  await bundleForNode(Object.fromEntries(Object.entries(workerThreads).map(([name, file]) => [name, path.join(root, file)])), workerDir);
  await stopBundling();
  const compiled = Object.keys(entryPoints).map((name) => path.join(outdir, `${name}.cjs`));
  const args = ['--enable-source-maps', '--test', `--test-concurrency=${suite.concurrency}`, `--test-timeout=${suite.timeoutMs}`, ...compiled];
  const result = spawnSync(process.execPath, args, {
    stdio: 'inherit',
    cwd: root,
    env: { ...process.env, BRAID_REPO_ROOT: root, BRAID_FAULTS_MODE: long ? 'long' : 'quick', BRAID_WORKER_DIR: workerDir },
  });
  return result.status ?? 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
