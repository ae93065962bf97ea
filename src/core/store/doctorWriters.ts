import type { TurnStructure } from '../wire/turnStructure';
import type { Finding } from './doctorFinding';
import { readState, type SessionState } from '../format/sessionState';
import type { SessionStore } from './sessionStore';
import { isDead, isStale, readLease, SessionBusyError, type LeaseInfo } from './writerLease';

/**
 * `braid doctor`'s checks of who writes a session: its main log's turn structure (two writers at
 * once interleave it), a lease whose holder is gone, a status left `running` or a turn count left
 * behind the log with no live writer. The log is never changed here; with `fix`, a session with no
 * live writer is recovered as the next process to open it would recover it (its lease taken over
 * and given back, its open turn ended `interrupted`, its status and turn count set right).
 */
export async function checkWriter(
  store: SessionStore,
  dir: string,
  where: string,
  turns: TurnStructure,
  fix: boolean,
  note: (f: Finding) => void,
): Promise<void> {
  const structure = turns.describe();
  if (structure) {
    note({
      severity: 'warning',
      where: `${where}/agents/main`,
      fixable: false,
      message: `the turn structure of the main log is interleaved, as when two processes write one session at once: ${structure}; the log is kept as it is and reads in file order`,
    });
  }
  const lease = readLease(store.layout.writerLock(dir));
  if (lease && !isStale(lease)) return; // a live writer: state.json is its to keep in step
  let state: SessionState;
  try {
    readState(store.layout.stateFile(dir));
    state = store.summaryAt(dir).state;
  } catch {
    return; // reported (and rebuilt) by the state check
  }
  const found = writerFindings(lease, state, where);
  if (found.length === 0) return;
  if (fix && !state.shared) {
    try {
      const interrupted = await store.recoverSession(dir);
      const fixed = interrupted ? 'took the lease over, ended the open turn `interrupted` and gave the lease back' : 'took the lease over and gave it back';
      for (const f of found) f.fixed = fixed;
    } catch (err) {
      if (!(err instanceof SessionBusyError)) throw err; // a writer came meanwhile: it recovers the session itself
    }
  }
  found.forEach(note);
}

/** What is wrong with a session that no live process writes (a pulled copy is read-only here: a pull replaces it, no fix does). */
function writerFindings(lease: LeaseInfo | undefined, state: SessionState, where: string): Finding[] {
  const found: Finding[] = [];
  if (state.shared) {
    // A turn open in a pulled copy was running on the machine that pushed it.
    if (state.status === 'running')
      found.push({
        severity: 'info',
        where,
        fixable: false,
        message: `pulled from ${state.shared.remote} while a turn was running on ${state.shared.machineName}; it is read-only here, and a later pull brings the rest`,
      });
    return found;
  }
  if (lease) {
    const why = isDead(lease) ? 'which is gone' : `which has not renewed it for ${Math.round((Date.now() - lease.renewedAt) / 1000)} s`;
    found.push({
      severity: 'warning',
      where,
      fixable: true,
      message: `writer.lock names process ${lease.pid} on ${lease.host}, ${why}; the next process to open the session takes it over`,
    });
  }
  if (state.status === 'running') {
    found.push({
      severity: 'warning',
      where,
      fixable: true,
      message: 'the session is running by its log (a turn began and never ended), but no process is writing it (its writer was killed mid-turn)',
    });
  }
  return found;
}
