import fs from 'node:fs';
import path from 'node:path';
import type { AssistantMessage, Message } from '@mariozechner/pi-ai';
import { newMessageId, newSessionId } from '../ids';
import { closeOpenToolCalls } from '../wire/toolCalls';
import type { MessageRecord, NewRecord, UsageRecord } from '../wire/records';
import { scanWireLog } from '../wire/wireReader';
import { WireLogWriter } from '../wire/wireLog';
import { type AgentInfo, type SessionState, type StoredState } from '../format/sessionState';
import { cutTitle, forkOrigin, sessionLabel } from '../format/titles';
import { goneMeanwhile } from './errors';
import { FORK_OPEN_CALL_TEXT, ForkError, publishFork, shareBlobs } from './fork';
import type { StoreContext } from './storeContext';

/**
 * The subagent `agentId` of a session (a `task` tool run): its id as given, or the one subagent
 * whose id ends with it (the tree and `braid show` show them whole). Throws ForkError when there
 * is none, or more than one.
 */
export function findSubagent(state: Pick<SessionState, 'id' | 'agents'>, agentId: string): AgentInfo {
  const subagents = state.agents.filter((a) => a.parentId !== null);
  const exact = subagents.find((a) => a.id === agentId);
  if (exact) return exact;
  const ending = agentId ? subagents.filter((a) => a.id.endsWith(agentId)) : [];
  if (ending.length === 1) return ending[0]!;
  const listed = subagents.length ? `its subagents are ${subagents.map((a) => a.id).join(', ')}` : 'it has no subagents';
  throw new ForkError(`session ${state.id} has ${ending.length > 1 ? 'more than one subagent ending with' : 'no subagent'} "${agentId}"; ${listed}`);
}

/** A subagent's conversation as its own log holds it: its messages (prompt first) and the parent turn it ran in. */
function readConversation(logFile: string): { messages: MessageRecord[]; turn: number } {
  const messages: MessageRecord[] = [];
  scanWireLog(logFile, (record) => void messages.push(record as MessageRecord), { only: ['message'] });
  return { messages, turn: messages[0]?.turn ?? 0 };
}

/** The usage records of the subagent's calls in the source's main log (a fork counts them as inherited history, under the source). */
function subagentUsage(mainLog: string, agentId: string): UsageRecord[] {
  const usage: UsageRecord[] = [];
  scanWireLog(
    mainLog,
    (record) => {
      if ((record as UsageRecord).purpose === `subagent:${agentId}`) usage.push(record as UsageRecord);
    },
    { only: ['usage'] },
  );
  return usage;
}

/** The title of a fork of a subagent: its task and the session it ran in. */
function agentForkTitle(agent: AgentInfo, sourceLabel: string): string {
  return `Fork of agent "${cutTitle(agent.title) || agent.id}" of ${cutTitle(forkOrigin(sourceLabel))}`;
}

/**
 * Forks one subagent of a session into a session of its own: one turn holding the subagent's
 * conversation (its prompt as the user's message, its calls, results and answers; calls it left
 * open are closed as a fork closes them), its calls' usage as inherited history, and `forkedFrom`
 * naming the source session, the parent turn and the agent. Built in a `.partial-<id>` folder and
 * published with one rename, as forkSession does: an unknown agent, or a crash, leaves nothing.
 */
export async function forkAgent(store: StoreContext, sourceId: string, agentId: string, options: { title?: string } = {}): Promise<SessionState> {
  const layout = store.layout;
  const sourceDir = store.locate(sourceId);
  const source = store.summaryAt(sourceDir).state;
  const agent = findSubagent(source, agentId);
  const { messages, turn } = readConversation(layout.agentLog(sourceDir, agent.id));
  if (messages.length === 0) throw new ForkError(`subagent ${agent.id} of ${sourceId} has no messages yet; there is nothing to fork`);
  const id = newSessionId();
  const partial = layout.partialDir(source.workspaceKey, id);
  const newMain = layout.agentLog(partial);
  try {
    fs.mkdirSync(path.dirname(newMain), { recursive: true });
    const from = { sessionId: sourceId, turn, agentId: agent.id };
    const history = messages.map((m) => m.message as Message);
    const answer = [...history].reverse().find((m): m is AssistantMessage => m.role === 'assistant');
    const records: NewRecord[] = [
      { t: 'agent', agentId: 'main', parentAgentId: null, purpose: 'main', sessionId: id, workspaceDir: source.workspaceDir },
      { t: 'turn_begin', turn: 1, promptId: messages[0]!.id, model: answer ? { provider: answer.provider, id: answer.model, thinking: 'off' } : source.model },
      ...messages.map((m): NewRecord => ({ t: 'message', turn: 1, id: m.id, message: m.message })),
      ...closeOpenToolCalls(history, FORK_OPEN_CALL_TEXT).map((message): NewRecord => ({ t: 'message', turn: 1, id: newMessageId(), message })),
      ...subagentUsage(layout.agentLog(sourceDir), agent.id).map(({ v: _v, ts: _ts, ...u }): NewRecord => ({ ...u, turn: 1 })),
      { t: 'turn_end', turn: 1, outcome: 'completed' },
      // Last: what came before it is the source's (its usage counted once, under the source).
      { t: 'forked', from },
    ];
    const log = WireLogWriter.open(newMain);
    await log.append(records, { durable: true });
    await log.close();
    shareBlobs(layout.blobsDir(sourceDir), layout.blobsDir(partial));
    const state: StoredState = {
      v: 2,
      id,
      workspaceKey: source.workspaceKey,
      workspaceDir: source.workspaceDir,
      ...(source.workspaceFolders ? { workspaceFolders: source.workspaceFolders } : {}),
      ...(source.runLocation ? { runLocation: source.runLocation } : {}),
      createdAt: Date.now(),
      title: options.title ?? agentForkTitle(agent, sessionLabel(store.index.get(sourceId) ?? source)),
      titleSource: 'user',
      kind: 'conversation',
      visibility: 'visible',
      archived: false,
      forkedFrom: from,
      queue: [],
      paused: null,
    };
    return store.summaryAt(publishFork(layout, partial, state)).state;
  } catch (err) {
    fs.rmSync(partial, { recursive: true, force: true });
    throw goneMeanwhile(err, sourceDir);
  }
}
