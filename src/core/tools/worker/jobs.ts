import fs from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { errorMessage } from '../../errors';
import { openForRead } from '../confinedFile';
import { walkFiles } from '../walk';
import { ToolError, WorkspaceFs } from '../workspaceFs';

// The work of the search tools, run in a worker thread (see runJob.ts): a regular expression from
// a model, a glob, or a pattern in a repository's .gitignore can take exponential time on
// ordinary text, and only a thread can be stopped in the middle of one.

/** Lists files under `start`, as walkFiles does (gitignore respected), relative to `root`. */
export interface WalkJob {
  readonly kind: 'walk';
  readonly root: string;
  readonly start: string;
  readonly limit: number;
}

/** Files under `start` whose path (relative to `start`) matches a glob. */
export interface GlobJob {
  readonly kind: 'glob';
  readonly start: string;
  readonly pattern: string;
  readonly limit: number;
}

/** Lines matching a regular expression in a file, or in the files under a folder. */
export interface GrepJob {
  readonly kind: 'grep';
  readonly roots: readonly string[];
  readonly forbidden: readonly string[];
  /** A real path inside the workspace: a file or a folder. */
  readonly target: string;
  readonly pattern: string;
  readonly include?: string;
  readonly maxFileBytes: number;
  readonly maxMatches: number;
  readonly maxChars: number;
}

export type ToolJob = WalkJob | GlobJob | GrepJob;

/** What a job tells the thread that started it. */
export type JobMessage =
  | { readonly type: 'item'; readonly text: string }
  | { readonly type: 'done'; readonly truncated: boolean }
  | { readonly type: 'error'; readonly message: string; readonly toolError: boolean };

/** Runs a job, handing each result line to `emit`; returns whether it stopped at a limit. */
export function runJob(job: ToolJob, emit: (text: string) => void): boolean {
  switch (job.kind) {
    case 'walk':
      return walk(job, emit);
    case 'glob':
      return glob(job, emit);
    case 'grep':
      return grep(job, emit);
  }
}

function walk(job: WalkJob, emit: (text: string) => void): boolean {
  let n = 0;
  for (const rel of walkFiles(job.root, job.start)) {
    if (n++ >= job.limit) return true;
    emit(rel);
  }
  return false;
}

function glob(job: GlobJob, emit: (text: string) => void): boolean {
  const isMatch = picomatch(job.pattern, { dot: true });
  let n = 0;
  for (const rel of walkFiles(job.start, job.start)) {
    if (!isMatch(rel)) continue;
    if (n++ >= job.limit) return true;
    emit(rel);
  }
  return false;
}

function isBinary(data: Buffer): boolean {
  return data.subarray(0, 8192).includes(0);
}

function grep(job: GrepJob, emit: (text: string) => void): boolean {
  let regex: RegExp;
  try {
    regex = new RegExp(job.pattern);
  } catch (err) {
    throw new ToolError(`invalid regular expression: ${errorMessage(err)}`);
  }
  const ws = new WorkspaceFs(job.roots, job.forbidden);
  const include = job.include ? picomatch(job.include, { dot: true, basename: !job.include.includes('/') }) : undefined;
  const isFile = fs.statSync(job.target, { throwIfNoEntry: false })?.isFile() ?? false;
  const base = isFile ? path.dirname(job.target) : job.target;
  const files = isFile ? [path.basename(job.target)] : walkFiles(job.target, job.target);
  let matches = 0;
  let chars = 0;
  for (const rel of files) {
    if (include && !include(rel)) continue;
    const full = path.join(base, rel);
    const data = readSmallFile(ws, full, job.maxFileBytes);
    if (!data || isBinary(data)) continue;
    const lines = data.toString('utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!regex.test(lines[i]!)) continue;
      const line = `${ws.display(full)}:${i + 1}: ${lines[i]!.slice(0, 300)}`;
      emit(line);
      chars += line.length;
      if (++matches >= job.maxMatches || chars > job.maxChars) return true;
    }
  }
  return false;
}

/** A regular file's bytes when it is at most `max` bytes; undefined for others (skipped by a search). */
function readSmallFile(ws: WorkspaceFs, full: string, max: number): Buffer | undefined {
  let opened;
  try {
    opened = openForRead(ws, full, full);
  } catch {
    return undefined;
  }
  try {
    if (opened.stat.size > max) return undefined;
    const data = Buffer.allocUnsafe(opened.stat.size);
    const n = fs.readSync(opened.fd, data, 0, data.length, 0);
    return data.subarray(0, n);
  } finally {
    fs.closeSync(opened.fd);
  }
}
