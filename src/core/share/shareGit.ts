import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childEnvironment } from '../process/childEnvironment';
import { findExecutable } from '../process/executable';
import { SHARE_PROTOCOLS } from './remote';
import { ShareError } from './shareError';

/** What a git command of the share repository printed, and how it exited. */
export interface ShareRun {
  readonly code: number | null;
  /** What it printed, as the pipe gave it (a large output is never copied into one buffer). */
  readonly chunks: readonly Buffer[];
  readonly stderr: string;
}

/** A blob as pieces of the pipe's chunks, in order (not copied into one buffer). */
export type Pieces = readonly Buffer[];

/** The bytes of `pieces`, in one buffer: for small blobs only. */
export function joined(pieces: Pieces): Buffer {
  return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces);
}

/** Reads lines and runs of bytes across a command's output chunks, giving subarrays, never copies of the bytes. */
class PiecesReader {
  private chunk = 0;
  private at = 0;

  constructor(private readonly chunks: readonly Buffer[]) {}

  /** The text up to the next newline, which is consumed. */
  line(): string {
    const parts: Buffer[] = [];
    for (;;) {
      const c = this.chunks[this.chunk];
      if (!c) return Buffer.concat(parts).toString('utf8');
      const nl = c.indexOf(10, this.at);
      if (nl >= 0) {
        parts.push(c.subarray(this.at, nl));
        this.at = nl + 1;
        return Buffer.concat(parts).toString('utf8');
      }
      parts.push(c.subarray(this.at));
      this.chunk++;
      this.at = 0;
    }
  }

  /** The next `n` bytes, as subarrays of the chunks. */
  take(n: number): Buffer[] {
    const pieces: Buffer[] = [];
    let left = n;
    while (left > 0) {
      const c = this.chunks[this.chunk];
      if (!c) break;
      const piece = c.subarray(this.at, Math.min(c.length, this.at + left));
      pieces.push(piece);
      left -= piece.length;
      this.at += piece.length;
      if (this.at >= c.length) {
        this.chunk++;
        this.at = 0;
      }
    }
    return pieces;
  }
}

/** A blob not read for its size. */
export interface TooBig {
  readonly tooBig: number;
}

/** Options of one command: bytes for its stdin, and the most of its stdout kept (more is an error). */
export interface RunOptions {
  readonly input?: Buffer | string;
  readonly maxOutput?: number;
}

const DEFAULT_MAX_OUTPUT = 16 * 1024 * 1024;
const TIMEOUT_MS = 30 * 60 * 1000;

/**
 * git over Braid's own bare repository under the data folder (`share/repo.git`): where the commits
 * of pushed sessions are built and a remote's refs fetched. Braid made this repository, so no
 * workspace's configuration is read; the user's own (global) configuration is, for what a
 * transport needs (credentials, ssh). Git may talk only over {@link SHARE_PROTOCOLS}, never
 * prompts, and runs no hook; fetched objects are checked (`transfer.fsckObjects`).
 */
export class ShareGit {
  private constructor(
    private readonly executable: string,
    readonly gitDir: string,
  ) {}

  /** The share repository of the data folder `root`, made on first use. */
  static async open(root: string): Promise<ShareGit> {
    const executable = findExecutable('git');
    if (!executable) throw new ShareError('git is not on PATH: push, pull and sync need it.');
    const gitDir = path.join(root, 'share', 'repo.git');
    const git = new ShareGit(executable, gitDir);
    if (!fs.existsSync(path.join(gitDir, 'HEAD'))) {
      fs.mkdirSync(gitDir, { recursive: true });
      await git.check(['init', '--bare', '--quiet', gitDir], 'make the share repository');
    }
    return git;
  }

  /** `git <args>`, its output, and how it exited; it never throws for git's failure. */
  run(args: readonly string[], options: RunOptions = {}): Promise<ShareRun> {
    const config = [`core.hooksPath=${os.devNull}`, 'transfer.fsckObjects=true', 'gc.auto=0', 'init.defaultBranch=main', 'color.ui=false'];
    const argv = [...config.flatMap((c) => ['-c', c]), `--git-dir=${this.gitDir}`, '--no-pager', ...args];
    return new Promise((resolve) => {
      const child = spawn(this.executable, argv, {
        cwd: path.dirname(this.gitDir),
        env: shareEnvironment(),
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
      const out: Buffer[] = [];
      let outBytes = 0;
      let stderr = '';
      const max = options.maxOutput ?? DEFAULT_MAX_OUTPUT;
      child.stdout.on('data', (chunk: Buffer) => {
        outBytes += chunk.length;
        if (outBytes <= max) out.push(chunk);
        else child.kill('SIGKILL');
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
      });
      child.stdin.on('error', () => {}); // git may exit before reading all of it; its exit code says why
      child.stdin.end(options.input ?? '');
      const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
      child.on('error', (err) => {
        clearTimeout(timer);
        resolve({ code: null, chunks: [], stderr: String(err) });
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        const over = outBytes > max ? `git printed more than ${max} bytes` : '';
        resolve({ code: over ? null : code, chunks: out, stderr: over || stderr });
      });
    });
  }

  /**
   * The blobs `specs` name (`<commit>:<path>`), read with one `git cat-file` after a check of their
   * sizes: a spec that names no blob is absent from the answer, and one over `maxBytes` is not read
   * (its size is given instead).
   */
  async blobs(specs: readonly string[], maxBytes: number): Promise<Map<string, Pieces | TooBig>> {
    const found = new Map<string, Pieces | TooBig>();
    if (specs.length === 0) return found;
    const input = `${specs.join('\n')}\n`;
    const checked = (await this.check(['cat-file', '--batch-check'], 'read the fetched sessions', { input })).toString('utf8').split('\n');
    const wanted: string[] = [];
    let total = 0;
    specs.forEach((spec, i) => {
      const [, type, size] = checked[i]?.split(' ') ?? [];
      if (type !== 'blob') return;
      if (Number(size) > maxBytes) return void found.set(spec, { tooBig: Number(size) });
      wanted.push(spec);
      total += Number(size);
    });
    if (wanted.length === 0) return found;
    const run = await this.run(['cat-file', '--batch'], { input: `${wanted.join('\n')}\n`, maxOutput: total + wanted.length * 200 });
    if (run.code !== 0) throw new ShareError(`could not read the fetched sessions: ${gitReason(run.stderr)}`);
    const reader = new PiecesReader(run.chunks);
    for (const spec of wanted) {
      const size = Number(reader.line().split(' ')[2]);
      found.set(spec, reader.take(size));
      reader.take(1); // the newline after each blob
    }
    return found;
  }

  /** `git <args>`'s output; a failure throws a ShareError saying what `doing` was and git's reason. */
  async check(args: readonly string[], doing: string, options: RunOptions = {}): Promise<Buffer> {
    const run = await this.run(args, options);
    if (run.code !== 0) throw new ShareError(`could not ${doing}: ${gitReason(run.stderr)}`);
    return Buffer.concat(run.chunks);
  }
}

/** git's reason for a failure: its `fatal:`/`error:` lines, else its last line. */
export function gitReason(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const said = lines.filter((l) => /^(fatal|error|remote):/.test(l));
  return (said.length ? said : lines.slice(-1)).join(' ').slice(0, 500) || 'git failed without a reason';
}

/**
 * The environment of the share repository's git: Braid's child environment without the GIT_*
 * variables it inherited (GIT_DIR or GIT_SSH_COMMAND would point git elsewhere), transports limited
 * to {@link SHARE_PROTOCOLS}, and no prompt for a password (the command would hang).
 */
function shareEnvironment(): NodeJS.ProcessEnv {
  const env = childEnvironment();
  for (const name of Object.keys(env)) if (/^GIT_/i.test(name)) delete env[name];
  return { ...env, GIT_ALLOW_PROTOCOL: SHARE_PROTOCOLS.join(':'), GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: '', SSH_ASKPASS: '', GIT_PAGER: 'cat' };
}
