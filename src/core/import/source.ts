import type { ImportTarget } from './importLog';
import type { SourceDigest } from './sourceLines';

/** The agents Braid imports sessions from. */
export const SOURCE_TOOLS = ['claude-code', 'codex', 'pi', 'opencode'] as const;
export type SourceTool = (typeof SOURCE_TOOLS)[number];

export const isSourceTool = (x: string): x is SourceTool => (SOURCE_TOOLS as readonly string[]).includes(x);

/** What an import left out of one source file, counted by reason. */
export class FileReport {
  readonly skipped = new Map<string, number>();

  skip(reason: string, count = 1): void {
    this.skipped.set(reason, (this.skipped.get(reason) ?? 0) + count);
  }

  /** `3 × not JSON; 1 × torn last line` — what a person reads. */
  summary(): string {
    return [...this.skipped].map(([reason, n]) => `${n} × ${reason}`).join('; ');
  }
}

/** One session found in a source, read far enough to know where it belongs and what it holds. */
export interface ScannedSession {
  readonly tool: SourceTool;
  /** The file (or, for opencode, the session's file) the `imported` record names. */
  readonly file: string;
  readonly sourceId: string;
  /** The folder it was recorded in: the workspace it is imported into. */
  readonly cwd: string;
  readonly title: string | null;
  readonly startedAt: number;
  readonly digest: SourceDigest;
  /** Its branches, the one the source tool would resume first; the others become forks of it. */
  readonly branches: readonly string[];
  /** Whether the source holds what was imported (its first `size` bytes hash to `sha256`) and more; by default a check of the file's first bytes. */
  grewFrom?(size: number, sha256: string): Promise<boolean>;
  /** Writes a branch's history into `target`. */
  convert(branch: string, target: ImportTarget, report: FileReport): Promise<void>;
}

/** One tool's format: where its sessions are and how one is read. */
export interface SourceFormat {
  readonly tool: SourceTool;
  /** The folders it keeps sessions in, by default (its own override variable honoured). */
  defaultRoots(env: NodeJS.ProcessEnv, home: string): string[];
  /** The session files under `root` (a folder of sessions, or one session file). */
  findFiles(root: string): string[];
  /** A file's session id and the session it is a child thread of, read cheaply (its first line); for tools whose subagents have files of their own. */
  identify?(file: string): { readonly sourceId: string; readonly parentSourceId?: string } | null;
  /** Reads a file far enough to know it; null when it holds no conversation (with the reason in `report`). */
  scan(file: string, report: FileReport): Promise<ScannedSession | null>;
}
