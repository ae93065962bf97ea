// The braid CLI as a process of its own, exactly as dist/cli.js runs it (arguments, stdio,
// environment, exit code), for tests that need a real process: signals, exit codes, a hang.
// With BRAID_TEST_WAIT_STDIN set it first waits for one line on stdin, so a test can prepare
// files that name the process's pid.
import { runAsProcess } from '../../../src/cli/process';
import { wasmPath } from '../store';

async function waitForLine(): Promise<void> {
  process.stdin.setEncoding('utf8');
  let text = '';
  for await (const chunk of process.stdin) {
    text += chunk;
    if (text.includes('\n')) break;
  }
  process.stdin.pause();
}

(process.env.BRAID_TEST_WAIT_STDIN ? waitForLine() : Promise.resolve()).then(() => runAsProcess({ wasmPath }));
