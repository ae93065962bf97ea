import { runCli } from './run';

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  (code) => { process.exitCode = code; },
  (err: unknown) => {
    process.stderr.write(`braid: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
