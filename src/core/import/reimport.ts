import { readSessionSummary } from '../format/summary';
import { autoTitle } from '../format/titles';
import { scanWireLog } from '../wire/wireReader';
import type { ImportedRecord, TurnBeginRecord, WireRecord } from '../wire/records';
import { WriterLease } from '../store/writerLease';
import { ImportLog, SourceChangedError, type ImportedSoFar } from './importLog';
import { digestPrefix } from './sourceLines';
import { importedRecord, indexFolder, IMPORTER_VERSION, type Into } from './newSession';
import type { FileReport, ScannedSession } from './source';
import type { ImportOutcome } from './outcome';

type Complete = ImportedRecord & ImportedSoFar & { readonly importer?: number };

/** What a session's log says of its import: the newest complete `imported` record, and what happened since. */
interface ImportState {
  /** The newest `imported` record with its counts (written when an import ended); none: the import never ended. */
  readonly last: Complete | undefined;
  /** Whether any `imported` record is there (a log that has only the head's was cut short). */
  readonly imported: boolean;
  /** Turns Braid ran, or rewinds, after the newest imported record: the session is the user's own since. */
  readonly touched: boolean;
}

function importState(agentLog: string): ImportState {
  let last: Complete | undefined;
  let imported = false;
  let touched = false;
  const visit = (r: WireRecord) => {
    if (r.t === 'imported') {
      imported = true;
      const record = r as Complete;
      if (record.turns !== undefined && record.lastTurnMessages !== undefined && record.earlierTurns !== undefined) {
        last = record;
        touched = false;
      }
    } else if (r.t === 'rewind' || r.t === 'undo_rewind' || (r.t === 'turn_begin' && !String((r as TurnBeginRecord).promptId).startsWith('imported-')))
      touched = true;
  };
  scanWireLog(agentLog, visit, { only: ['imported', 'rewind', 'undo_rewind', 'turn_begin'] });
  return { last, imported, touched };
}

/** What {@link appendTo} did; `rewoundInSource`: the source tool rewound its conversation since, and the caller imports the branch it resumes as a fork. */
export interface Appended {
  readonly outcome: ImportOutcome;
  readonly rewoundInSource?: boolean;
}

/**
 * A session imported before: unchanged; grown at its end (the new part appended under the writer
 * lease); or repaired, when the import before it was cut short (its log ends before the import's
 * end, or holds fewer turns than that import wrote) or was written by an older importer: every
 * turn is written again after a conversation-only rewind, with the same message ids, so each
 * model call still counts once.
 */
export async function appendTo(into: Into, dir: string, base: ImportOutcome, session: ScannedSession, report: FileReport, dryRun: boolean): Promise<Appended> {
  const { store } = into;
  const left = (reason: string, rewoundInSource = false): Appended => ({ outcome: { ...base, action: 'skipped', reason }, rewoundInSource });
  const log = store.layout.agentLog(dir);
  const state = importState(log);
  if (!state.imported) return left('a session with this id exists and was not imported');
  const repair = needsRepair(state, readSessionSummary(dir).summary.state.turnCount);
  if (repair) {
    if (state.touched) return left(`its import was cut short (${repair}), and it was continued in Braid since; it is kept as it is`);
    if (dryRun) return { outcome: { ...base, action: 'repaired', reason: `would write it again whole: ${repair} (dry run: nothing written)` } };
    return { outcome: await write(into, dir, base, session, report, null, repair) };
  }
  const last = state.last!;
  if (last.size === session.digest.size && last.sha256 === session.digest.sha256) return { outcome: { ...base, action: 'unchanged', turns: last.turns } };
  const grown = session.grewFrom
    ? await session.grewFrom(last.size, last.sha256)
    : session.digest.size > last.size && digestPrefix(session.file, session.root, last.size).sha256 === last.sha256;
  if (!grown) return left('its source changed since the import (not only grown); the imported session is kept as it was');
  if (state.touched) return left(`continued or rewound in Braid since the import; what ${session.tool} added is not appended`);
  if (dryRun) return { outcome: { ...base, action: 'appended', reason: 'would append what the source added (dry run: nothing written)' } };
  try {
    return { outcome: await write(into, dir, base, session, report, last, null) };
  } catch (err) {
    if (err instanceof SourceChangedError)
      return left(`${session.tool} rewound the conversation since the import (${err.message}): the branch it resumes now is imported as a fork`, true);
    throw err;
  }
}

/** Why a session's import must be written again, or null when it stands. */
function needsRepair(state: ImportState, turnsInLog: number): string | null {
  if (!state.last) return 'the import before ended before it was complete';
  if (!state.touched && turnsInLog < state.last.turns) return `its log holds ${turnsInLog} of the ${state.last.turns} turns imported`;
  if ((state.last.importer ?? 1) < IMPORTER_VERSION && !state.touched) return 'it was imported by an older Braid';
  return null;
}

/** Appends under the writer lease: what the source added (`soFar`), or (a repair) every turn again. */
async function write(
  into: Into,
  dir: string,
  base: ImportOutcome,
  session: ScannedSession,
  report: FileReport,
  soFar: ImportedSoFar | null,
  repair: string | null,
): Promise<ImportOutcome> {
  const { store } = into;
  const lease = await WriterLease.acquire(store.layout, dir);
  try {
    const log = new ImportLog(store.layout.agentLog(dir), {
      idScope: `${session.tool}\n${session.sourceId}`,
      startedAt: session.startedAt,
      soFar,
      rewrite: repair !== null,
    });
    try {
      await session.convert(session.branches[0]!, log, report);
      const result = log.finish((counts) => [importedRecord(session, counts)]);
      if (log.unreadableMessages) report.skip('messages whose content is damaged (not text, images or tool calls)', log.unreadableMessages);
      if (repair && log.firstPrompt !== null) await retitle(store, dir, log.firstPrompt);
      indexFolder(store, dir);
      if (repair) return { ...base, action: 'repaired', reason: `written again whole: ${repair}`, turns: result.turns, messages: result.messages };
      return { ...base, action: result.appended ? 'appended' : 'unchanged', turns: result.turns, messages: result.appended };
    } catch (err) {
      log.abandon();
      throw err;
    }
  } finally {
    await lease.release();
  }
}

/** A session written again keeps a title the user gave it; an automatic one follows the first prompt as it reads now. */
async function retitle(store: Into['store'], dir: string, firstPrompt: string): Promise<void> {
  const { state } = readSessionSummary(dir).summary;
  const title = autoTitle(firstPrompt);
  if (state.titleSource === 'auto' && title && title !== state.title) await store.update(state.id, (s) => ({ ...s, title }));
}
