import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from './store';

/**
 * Runs a program in a pseudo-terminal through Python's pty module (a real terminal to the
 * program: stdin, stdout and stderr are the terminal, raw mode works), relaying what the test
 * writes as keys and collecting what the program draws. The exit status is the program's (128 +
 * the signal's number when a signal ended it).
 */
const RELAY = `
import fcntl, os, pty, select, struct, sys, termios
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', 24, 120, 0, 0))
sources = [fd, 0]
while True:
    ready = select.select(sources, [], [])[0]
    if 0 in ready:
        keys = os.read(0, 65536)
        if keys:
            os.write(fd, keys)
        else:
            sources.remove(0)
    if fd in ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b''
        if not data:
            break
        os.write(1, data)
status = os.waitpid(pid, 0)[1]
code = os.waitstatus_to_exitcode(status)
sys.exit(128 - code if code < 0 else code)
`;

/** A program running in a pseudo-terminal. */
export interface TerminalRun {
  /** What the terminal showed so far, escape sequences and all. */
  readonly screen: () => string;
  /** Types `keys` (raw bytes, as a terminal sends them: "\x1b[B" is the down arrow). */
  type(keys: string): void;
  /** Resolves once the terminal has shown `text` after the first `from` characters; fails (and kills the program) after 20 s or when the program ends first. */
  shown(text: string, from?: number): Promise<void>;
  /** Resolves with the exit code when the program ends; kills it after `timeoutMs`. */
  exited(timeoutMs?: number): Promise<number | null>;
}

/** Starts `braid <args>` (the CLI worker, run as dist/cli.js would be) in a pseudo-terminal. */
export function braidInTerminal(args: readonly string[], env: NodeJS.ProcessEnv): TerminalRun {
  const worker = path.join(repoRoot, 'out', 'test', 'workers', 'cliProcess.cjs');
  const child = spawn('python3', ['-c', RELAY, process.execPath, worker, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  let screen = '';
  child.stdout.on('data', (c: Buffer) => (screen += c.toString()));
  child.stderr.on('data', (c: Buffer) => (screen += c.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  let ended = false;
  void exit.then(() => (ended = true));
  return {
    screen: () => screen,
    type: (keys) => child.stdin.write(keys),
    shown: async (text, from = 0) => {
      const deadline = Date.now() + 20_000;
      while (!screen.slice(from).includes(text)) {
        if (ended || Date.now() > deadline) {
          child.kill('SIGKILL'); // the program is not left waiting for keys that will not come
          throw new Error(`the terminal did not show ${JSON.stringify(text)}: ${JSON.stringify(screen)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    exited: (timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`braid ${args.join(' ')} did not end within ${timeoutMs} ms: ${JSON.stringify(screen)}`));
        }, timeoutMs);
        void exit.then((code) => {
          clearTimeout(timer);
          resolve(code);
        });
      }),
  };
}
