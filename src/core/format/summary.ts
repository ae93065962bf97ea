import fs from 'node:fs';
import path from 'node:path';
import type { Message } from '@mariozechner/pi-ai';
import { isSessionId } from '../ids';
import { sessionFolderLayout } from './layout';
import { HistoryBuilder, type History } from '../wire/replay';
import type { UsageRecord } from '../wire/records';
import { scanWireLog, type ScanReport } from '../wire/wireReader';
import { readState, StateFileError, zeroUsage, type SessionState, type UsageTotals } from './sessionState';
import { autoTitle, labelText } from './titles';
import { counted } from '../counted';

/**
 * Usage a session's log holds, for one day (UTC), one model and one origin: the session whose own
 * calls these are (the session itself, or for a fork the session it inherited them from).
 */
export interface UsageBucket extends UsageTotals {
  origin: string;
  day: string;
  provider: string;
  model: string;
  calls: number;
}

/** Everything the index keeps about a session; derivable from its folder alone. */
export interface SessionSummary {
  state: SessionState;
  firstPrompt: string;
  lastPreview: string;
  messageCount: number;
  /** User prompts joined for search, capped at {@link MAX_SEARCH_TEXT} characters. */
  prompts: string;
  usage: UsageBucket[];
  logBytes: number;
  stateMtime: number;
}

export const MAX_SEARCH_TEXT = 256 * 1024;
const PREVIEW_CHARS = 200;

/** The text blocks of a message, joined. */
export function messageText(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  const parts: string[] = [];
  for (const block of message.content) if (block.type === 'text') parts.push(block.text);
  return parts.join('\n');
}

/**
 * What the user typed in a user message: its last text block (earlier blocks are reminders
 * Braid added: docs/reference.md, Turns and prompts), or the whole text of any other message.
 */
export function promptText(message: Message): string {
  if (message.role !== 'user' || typeof message.content === 'string') return messageText(message);
  const texts = message.content.filter((b): b is { type: 'text'; text: string } => b.type === 'text');
  return texts.at(-1)?.text ?? '';
}

export function previewOf(text: string): string {
  const flat = labelText(text).replace(/\s+/g, ' ').trim();
  return Array.from(flat).slice(0, PREVIEW_CHARS).join('');
}

/** The UTC day of a record's time; `unknown` for a time no clock gives (a damaged or hand-made record). */
export function dayOf(ts: number): string {
  const date = new Date(ts);
  return Number.isNaN(date.getTime()) ? 'unknown' : date.toISOString().slice(0, 10);
}

/** Adds a usage record's tokens and cost to running totals. */
export function addToTotals(totals: UsageTotals, u: Pick<UsageRecord, 'input' | 'output' | 'cacheRead' | 'cacheWrite' | 'reasoning' | 'cost'>): void {
  totals.input += u.input ?? 0;
  totals.output += u.output ?? 0;
  totals.cacheRead += u.cacheRead ?? 0;
  totals.cacheWrite += u.cacheWrite ?? 0;
  totals.reasoning += u.reasoning ?? 0;
  totals.cost += u.cost ?? 0;
}

/** Adds one call (its usage record) to buckets, as a call of session `origin`. */
export function addUsage(buckets: UsageBucket[], u: UsageRecord, origin: string): void {
  const day = dayOf(u.ts);
  const provider = u.provider ?? '';
  const model = u.model ?? '';
  let b = buckets.find((x) => x.origin === origin && x.day === day && x.provider === provider && x.model === model);
  if (!b) {
    b = { origin, day, provider, model, calls: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0 };
    buckets.push(b);
  }
  b.calls++;
  addToTotals(b, u);
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
 * Reads a session folder: state.json and the main wire log. A missing or broken state.json is
 * rebuilt from the log (the caller decides whether to write it back).
 */
export function readSessionFolder(dir: string, stateFile = sessionFolderLayout.stateFile(dir), logFile = sessionFolderLayout.agentLog(dir)): SessionReading {
  const builder = new HistoryBuilder();
  const prompts: string[] = [];
  let promptChars = 0;
  let lastTs = 0;
  const report = scanWireLog(logFile, (record) => {
    builder.add(record);
    if (record.ts > lastTs) lastTs = record.ts;
  });
  const history = builder.build();
  for (const m of history.messages) {
    if (m.message.role !== 'user' || promptChars >= MAX_SEARCH_TEXT) continue;
    const text = promptText(m.message);
    prompts.push(text);
    promptChars += text.length + 1;
  }
  const firstUser = history.messages.find((m) => m.message.role === 'user');
  const lastAssistant = [...history.messages].reverse().find((m) => m.message.role === 'assistant' && messageText(m.message).trim());
  const totals = zeroUsage();
  for (const call of history.calls) addToTotals(totals, call.record);

  let state: SessionState;
  let stateProblem: string | undefined;
  let stateMtime = 0;
  try {
    state = readState(stateFile);
    stateMtime = fs.statSync(stateFile).mtimeMs;
  } catch (err) {
    if (!(err instanceof StateFileError)) throw err;
    stateProblem = err.message;
    const id = path.basename(dir);
    if (!isSessionId(id)) throw new StateFileError(`${dir} is not a session folder`);
    const firstText = firstUser ? promptText(firstUser.message) : '';
    const created = history.agent?.ts ?? lastTs;
    const lastBegin = history.turnBegins.at(-1);
    state = {
      v: 1,
      id,
      title: autoTitle(firstText),
      titleSource: 'auto',
      workspaceDir: history.agent?.workspaceDir ?? '',
      workspaceKey: path.basename(path.dirname(dir)),
      createdAt: created,
      updatedAt: lastTs || created,
      status: history.openTurn !== null ? 'interrupted' : 'idle',
      error: null,
      kind: 'conversation',
      visibility: 'visible',
      archived: false,
      forkedFrom: history.forkedFrom ? { sessionId: history.forkedFrom.sessionId, turn: history.forkedFrom.turn } : null,
      agents: listAgents(dir),
      model: lastBegin?.model ?? null,
      queue: [],
      paused: null,
      turnCount: history.turnBegins.length,
      usage: totals,
    };
  }
  const usage: UsageBucket[] = [];
  for (const call of history.calls) addUsage(usage, call.record, call.origin ?? state.id);
  const summary: SessionSummary = {
    state,
    firstPrompt: firstUser ? previewOf(promptText(firstUser.message)) : '',
    lastPreview: lastAssistant ? previewOf(messageText(lastAssistant.message)) : '',
    messageCount: history.messages.length,
    prompts: prompts.join('\n').slice(0, MAX_SEARCH_TEXT),
    usage,
    logBytes: report.bytes,
    stateMtime,
  };
  return { summary, report, stateProblem, nextTurn: history.nextTurn, openTurn: history.openTurn, history };
}

function listAgents(dir: string): SessionState['agents'] {
  try {
    return fs.readdirSync(sessionFolderLayout.agentsDir(dir)).map((id) => ({ id, parentId: id === 'main' ? null : 'main', title: id }));
  } catch {
    return [{ id: 'main', parentId: null, title: 'main' }];
  }
}
