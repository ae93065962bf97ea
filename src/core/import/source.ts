import type { ImportTarget } from './importLog';
import type { SourceDigest } from './sourceLines';
import type { SourceDatabases } from './sourceDatabase';

/** The agents Braid imports sessions from. */
export const SOURCE_TOOLS = ['claude-code', 'codex', 'pi', 'opencode'] as const;
export type SourceTool = (typeof SOURCE_TOOLS)[number];

export const isSourceTool = (x: string): x is SourceTool => (SOURCE_TOOLS as readonly string[]).includes(x);

/** The names people know the tools by. */
export const TOOL_NAMES: Record<SourceTool, string> = { 'claude-code': 'Claude Code', codex: 'Codex', pi: 'pi', opencode: 'opencode' };

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

/**
 * Where one session of a source is: its file, the folder it was found in (no file outside that
 * folder is read for it), and, for a database that holds many sessions, the session's id in it.
 */
export interface SourceRef {
  readonly file: string;
  readonly root: string;
  readonly key?: string;
}

/** One session found in a source, read far enough to know where it belongs and what it holds. */
export interface ScannedSession {
  readonly tool: SourceTool;
  /** The file (for opencode's JSON storage, the session's file; for its database, the database) the `imported` record names. */
  readonly file: string;
  /** The folder it was found in: nothing outside it is read for the session. */
  readonly root: string;
  readonly sourceId: string;
  /** The folder it was recorded in: the workspace it is imported into. */
  readonly cwd: string;
  readonly title: string | null;
  /** When it began, by the source's own clock (a plausible time: never in the future). */
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
  /**
   * The sessions under `root`: a folder of this tool's, or one of its files (whose own folder
   * bounds what is read). Files that are not sessions (a subagent's log) are left out.
   */
  find(root: string, databases: SourceDatabases): Promise<SourceRef[]>;
  /** Whether a file is this tool's, from its first records (the file's name and head bytes for a database): what `--from auto` sorts files by. */
  claims(file: string, head: readonly Record<string, unknown>[], bytes: Buffer): boolean;
  /** Why a file of this tool that {@link find} leaves out is not imported on its own (a subagent's log); null when it is not left out. */
  refusal?(file: string): string | null;
  /** A session's id and the session it is a child thread of, read cheaply; for tools whose subagents are sessions of their own. */
  identify?(ref: SourceRef, databases: SourceDatabases): Promise<{ readonly sourceId: string; readonly parentSourceId?: string } | null>;
  /** Reads a session far enough to know it; null when it holds no conversation (with the reason in `report`). */
  scan(ref: SourceRef, report: FileReport, databases: SourceDatabases): Promise<ScannedSession | null>;
}
