import path from 'node:path';
import { counted } from '../counted';
import { errorMessage } from '../errors';
import { quarantineUnreadable, type QuarantineResult } from '../wire/logQuarantine';
import type { ScanReport } from '../wire/wireReader';
import type { Finding } from './doctorFinding';
import { hasPending } from './pendingRewind';
import type { SessionStore } from './sessionStore';
import { SessionBusyError, WriterLease } from './writerLease';
import { SharedSessionError } from './errors';

/** A log of a session whose scan met lines readers skip: unreadable lines, or a torn last line. */
export interface DamagedLog {
  readonly log: string;
  /** The log as findings name it (`<workspace>/<session>/agents/<agent>`). */
  readonly where: string;
  readonly scan: ScanReport;
}

/** What became of a session's damaged logs: each log's result (or why it failed), or why none was touched. */
type Outcome = { readonly done: Map<string, QuarantineResult | Error | undefined> } | { readonly leftAlone: string };

/**
 * `braid doctor`'s check of the lines readers skip in a session's logs (docs/reference.md, Wire
 * records). With `fix`, under the session's writer lease, each log's unreadable lines go to its
 * quarantine file and the log is replaced by one without them (logQuarantine.ts); its index row
 * is read again from the folder. Holding the lease, no process writes the session, so its torn
 * last line is no write in progress and goes too; while another process holds it, the logs are
 * left alone. Returns whether it changed a log.
 */
export async function checkUnreadable(
  store: SessionStore,
  dir: string,
  damaged: readonly DamagedLog[],
  fix: boolean,
  note: (f: Finding) => void,
): Promise<boolean> {
  const outcome = fix ? await quarantineSession(store, dir, damaged) : undefined;
  for (const { log, where, scan } of damaged) {
    const result = outcome && 'done' in outcome ? outcome.done.get(log) : undefined;
    const left =
      outcome && 'leftAlone' in outcome ? `; ${outcome.leftAlone}` : result instanceof Error ? `; it could not be repaired: ${errorMessage(result)}` : '';
    const fixed = outcome && 'done' in outcome && !(result instanceof Error) ? { fixed: fixedText(dir, result) } : {};
    if (scan.tornTail) {
      note({
        severity: 'warning',
        where,
        fixable: true,
        message: `the last line is torn (${scan.tornBytes} bytes cut short by a crash or a full disk); readers ignore it${left}`,
        ...fixed,
      });
    }
    if (scan.badLines > 0) {
      const first = scan.bad[0];
      note({
        severity: 'warning',
        where,
        fixable: true,
        message: `${counted(scan.badLines, 'unreadable line')} skipped by every reader (first: line ${first?.line} at byte ${first?.offset}, ${first?.reason})${left}`,
        ...fixed,
      });
    }
  }
  return outcome !== undefined && 'done' in outcome && [...outcome.done.values()].some((r) => r && !(r instanceof Error));
}

/** What `--fix` did to one log. */
function fixedText(dir: string, result: QuarantineResult | undefined): string {
  if (!result) return 'read again under the lease, every line reads (the line was being written when it was first read)';
  return `moved ${counted(result.lines, 'line')} (${result.bytes} bytes) to ${path.relative(dir, result.quarantineFile)}, each with its place in the log and the time; the log reads clean`;
}

/** Takes the unreadable lines out of the damaged logs of the session in `dir`, holding its writer lease. */
async function quarantineSession(store: SessionStore, dir: string, damaged: readonly DamagedLog[]): Promise<Outcome> {
  let lease: WriterLease;
  try {
    lease = await WriterLease.acquire(store.layout, dir);
  } catch (err) {
    if (err instanceof SharedSessionError)
      return { leftAlone: 'it was pulled from a git remote and is read-only here, so it is left alone: pull it again to replace it' };
    if (!(err instanceof SessionBusyError)) throw err;
    const { pid, host } = err.holder;
    return {
      leftAlone: `process ${pid} on ${host} is writing the session (a torn last line may be its write in progress), so it is left alone: run braid doctor --fix again once it is done`,
    };
  }
  try {
    // A rewind cut short (finished above unless that failed) names the log's size: its log stays as it is.
    if (hasPending(dir)) return { leftAlone: 'a rewind cut short must be finished first (open the session), so it is left alone' };
    const done = new Map<string, QuarantineResult | Error | undefined>();
    for (const { log } of damaged) {
      try {
        done.set(log, quarantineUnreadable(log, { fence: () => lease.check() }));
      } catch (err) {
        done.set(log, err instanceof Error ? err : new Error(String(err)));
      }
    }
    if ([...done.values()].some((r) => r && !(r instanceof Error))) store.index.rereadFolder(dir);
    return { done };
  } finally {
    await lease.release();
  }
}
