import fs from 'node:fs';
import path from 'node:path';
import { isSessionId } from '../ids';
import { sessionFolderLayout } from './layout';
import { HistoryBuilder, type History } from '../wire/replay';
import { scanWireLog, scanWirePieces, type ScanReport } from '../wire/wireReader';
import { recordFromHead } from './headFold';
import { applyRecord, emptyFold, factsOf, usageOf, type LogFold } from './logFold';
import { readSharedSidecar, readState, StateFileError, storedPart, type AgentInfo, type SessionState, type StoredState } from './sessionState';
import { autoTitle } from './titles';
import type { UsageBucket } from './usage';
import { counted } from '../counted';
import { writeFailureNote } from './writeFailure';

/** Everything the index keeps about a session; derivable from its folder alone. */
export interface SessionSummary {
  /** What state.json keeps and what the log says, together. */
  state: SessionState;
  firstPrompt: string;
  lastPreview: string;
  messageCount: number;
  /** The git branch of the last turn that recorded one (its turn_begin's: docs/reference.md, Wire records), and every branch its turns ran on. */
  branch: string | null;
  branches: string[];
  /** User prompts joined for search, capped at MAX_SEARCH_TEXT characters. */
  prompts: string;
  usage: UsageBucket[];
  logBytes: number;
  stateMtime: number;
  /** The fold of the main log the facts come from: a writer goes on folding from it. */
  fold: LogFold;
}

/**
 * A session's summary from what state.json keeps and the fold of its main log: the only place
 * where derived facts are put together, for the writer as it appends and the index as it reads.
 */
export function summarize(stored: StoredState, fold: LogFold, agents: AgentInfo[], logBytes: number, stateMtime: number): SessionSummary {
  const facts = factsOf(fold);
  // A log write that failed for good outweighs what the log says: its end is not all there.
  const unsaved = stored.writeFailure;
  const state: SessionState = {
    ...storedPart(stored),
    updatedAt: Math.max(fold.lastTs, stored.createdAt),
    status: unsaved ? 'error' : facts.status,
    error: unsaved ? { message: writeFailureNote(unsaved), source: 'write' } : facts.error,
    turnCount: facts.turnCount,
    model: facts.model,
    usage: facts.usage,
    agents,
  };
  return {
    state,
    firstPrompt: facts.firstPrompt,
    lastPreview: facts.lastPreview,
    messageCount: facts.messageCount,
    branch: facts.branch,
    branches: facts.branches,
    prompts: fold.prompts,
    usage: usageOf(fold, stored.id),
    logBytes,
    stateMtime,
    fold,
  };
}

/**
 * What a reader had to skip in a log, as one sentence for the log channel or stderr (undefined when
 * nothing was skipped). A torn last line is left out: a crash mid-write leaves one, and it is
 * expected.
 */
export function logProblem(report: ScanReport, log = 'the log'): string | undefined {
  const parts: string[] = [];
  if (report.badLines > 0) {
    const first = report.bad[0];
    parts.push(`${counted(report.badLines, 'unreadable line')} in ${log} were skipped (first: line ${first?.line}, ${first?.reason})`);
  }
  if (report.invalidUtf8Lines > 0) parts.push(`${counted(report.invalidUtf8Lines, 'line')} of ${log} had invalid UTF-8, read with replacement characters`);
  if (parts.length === 0) return undefined;
  return `${parts.join('; ')}; the rest of the session reads, and the damaged bytes stay in the file ("braid doctor" lists them)`;
}

/** The result of reading a session folder: its summary, and what had to be tolerated or repaired. */
export interface SessionReading {
  summary: SessionSummary;
  report: ScanReport;
  /** Set when state.json was unusable and the state was rebuilt from the logs. */
  stateProblem: string | undefined;
  /** The number the next turn gets, and a turn that began without ending. */
  nextTurn: number;
  openTurn: number | null;
  /** The effective history read on the way (the messages a Session loads into the kernel). */
  history: History;
}

/**
 * Reads a session folder: state.json and the main wire log, folded once. A missing or broken
 * state.json is rebuilt from the log (the caller decides whether to write it back).
 */
export function readSessionFolder(dir: string, stateFile = sessionFolderLayout.stateFile(dir), logFile = sessionFolderLayout.agentLog(dir)): SessionReading {
  const builder = new HistoryBuilder();
  const fold = emptyFold();
  const report = scanWireLog(logFile, (record, offset, length) => {
    builder.add(record);
    applyRecord(fold, record, offset, length);
  });
  const { stored, stateProblem, stateMtime } = readStoredState(dir, stateFile, fold);
  const facts = factsOf(fold);
  const summary = summarize(stored, fold, readAgents(dir), report.bytes, stateMtime);
  return { summary, report, stateProblem, nextTurn: facts.nextTurn, openTurn: facts.openTurn, history: builder.build() };
}

/** A session folder's summary, and what was tolerated on the way. */
export interface SummaryReading {
  summary: SessionSummary;
  report: ScanReport;
  /** Set when state.json was unusable and the state was rebuilt from the log. */
  stateProblem: string | undefined;
}

/**
 * A session folder's summary alone, for the index: as {@link readSessionFolder}'s, without the
 * history, and folded as a fork's copy is: a tool result, the bulk of a log, is taken from its
 * line's head and end without being parsed (format/headFold.ts), so such a line damaged between
 * a whole head and end counts where a full read skips it (`braid doctor` compares rows with full
 * reads and puts them right).
 */
export function readSessionSummary(dir: string, stateFile = sessionFolderLayout.stateFile(dir), logFile = sessionFolderLayout.agentLog(dir)): SummaryReading {
  const fold = emptyFold();
  const report = scanWireLog(logFile, (record, offset, length) => applyRecord(fold, record, offset, length), SUMMARY_SCAN);
  const { stored, stateProblem, stateMtime } = readStoredState(dir, stateFile, fold);
  return { summary: summarize(stored, fold, readAgents(dir), report.bytes, stateMtime), report, stateProblem };
}

/** How the index reads a main log for its summary (see {@link readSessionSummary}). */
const SUMMARY_SCAN = { fromHead: recordFromHead };

/**
 * The fold of a main log whose bytes are in memory (in pieces, in order), exactly as
 * {@link readSessionSummary} would fold the file they make, and its size: a writer of a whole log
 * gives the index its row without the log being read back.
 */
export function foldPieces(pieces: readonly Buffer[]): { fold: LogFold; logBytes: number } {
  const fold = emptyFold();
  const report = scanWirePieces(pieces, (record, offset, length) => applyRecord(fold, record, offset, length), SUMMARY_SCAN);
  return { fold, logBytes: report.bytes };
}

/** state.json, or what it would say rebuilt from the log's fold when it is missing or broken. */
function readStoredState(dir: string, stateFile: string, fold: LogFold): { stored: StoredState; stateProblem: string | undefined; stateMtime: number } {
  try {
    const stored = withSharedOrigin(dir, readState(stateFile), false);
    return { stored, stateProblem: undefined, stateMtime: fs.statSync(stateFile).mtimeMs };
  } catch (err) {
    if (!(err instanceof StateFileError)) throw err;
    return { stored: withSharedOrigin(dir, storedFromLog(dir, fold), true), stateProblem: err.message, stateMtime: 0 };
  }
}

/** What state.json would say, rebuilt from the log when the file is missing or broken. */
function storedFromLog(dir: string, fold: LogFold): StoredState {
  const id = path.basename(dir);
  if (!isSessionId(id)) throw new StateFileError(`${dir} is not a session folder`);
  return {
    v: 2,
    id,
    workspaceKey: path.basename(path.dirname(dir)),
    workspaceDir: fold.workspaceDir,
    createdAt: fold.startedAt || fold.lastTs,
    title: autoTitle(factsOf(fold).firstPrompt),
    titleSource: 'auto',
    kind: 'conversation',
    visibility: 'visible',
    archived: false,
    forkedFrom: fold.forkedFrom,
    queue: [],
    paused: null,
  };
}

/**
 * A pulled copy kept read-only: the log has no `shared`, so a state rebuilt from it (or a
 * state.json whose `shared` was lost) takes it back from the folder's `shared.json`; a rebuilt one
 * takes its workspace folder from there too (the pulled log names it `.`).
 */
function withSharedOrigin(dir: string, stored: StoredState, rebuilt: boolean): StoredState {
  if (stored.shared && !rebuilt) return stored;
  const sidecar = readSharedSidecar(sessionFolderLayout.sharedFile(dir));
  if (!sidecar) return stored;
  return { ...stored, shared: stored.shared ?? sidecar.shared, ...(rebuilt ? { workspaceDir: sidecar.workspaceDir } : {}) };
}

/** A session's agents from its folder: the main one first, then each subagent as its log's first line names it. */
export function readAgents(dir: string): AgentInfo[] {
  const agents: AgentInfo[] = [{ id: 'main', parentId: null, title: 'main' }];
  let ids: string[];
  try {
    ids = fs
      .readdirSync(sessionFolderLayout.agentsDir(dir))
      .filter((id) => id !== 'main')
      .sort();
  } catch {
    return agents;
  }
  for (const id of ids) {
    let first: { parentAgentId?: unknown; purpose?: unknown } | undefined;
    scanWireLog(
      sessionFolderLayout.agentLog(dir, id),
      (record) => {
        first ??= record as { parentAgentId?: unknown; purpose?: unknown };
      },
      { end: 64 * 1024 },
    );
    agents.push({
      id,
      parentId: typeof first?.parentAgentId === 'string' ? first.parentAgentId : 'main',
      title: typeof first?.purpose === 'string' ? first.purpose : id,
    });
  }
  return agents;
}
