import type { SourceTool } from './source';

/**
 * What happened to a source session: `refused` is a path the user named that is not imported
 * (and fails the run, as `failed` does); `skipped` a session left alone for a reason that is no
 * error (in the trash, continued in Braid, a subagent imported with its session).
 */
export type ImportAction = 'imported' | 'appended' | 'repaired' | 'unchanged' | 'skipped' | 'refused' | 'failed';

/** What happened to one source session (or one file or folder that held none). */
export interface ImportOutcome {
  readonly tool?: SourceTool;
  readonly file: string;
  readonly action: ImportAction;
  /** With --dry-run: what would happen (nothing was written). */
  readonly dryRun: boolean;
  readonly sourceId?: string;
  readonly sessionId?: string;
  readonly workspaceDir?: string;
  readonly title?: string | null;
  readonly turns?: number;
  /** Messages written now (all of them for a new session, the new ones for an append). */
  readonly messages?: number;
  /** Forks made of the source's other branches. */
  readonly forks?: readonly string[];
  /** Why the session or parts of the file were left out. */
  readonly reason?: string;
  readonly skippedLines?: string;
  readonly bytes: number;
}

/** Whether an import's outcomes mean it failed (exit 1): a session that failed, or a path named that was refused. */
export function importFailed(outcomes: readonly ImportOutcome[]): boolean {
  return outcomes.some((o) => o.action === 'failed' || o.action === 'refused');
}
