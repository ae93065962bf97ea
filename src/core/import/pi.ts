import path from 'node:path';
import type { AssistantMessage, Message } from '@mariozechner/pi-ai';
import type { ImportTarget } from './importLog';
import type { ModelSnapshot } from '../wire/records';
import { assistantMessage, callTokens, fileTime, isObject, text, timeOf, userMessage, type AnswerBlock } from './messages';
import { DigestSink, readSourceLines } from './sourceLines';
import { readNodes, RecordCache, recordOf, SourceTree } from './tree';
import { mapToolCall } from './toolMap';
import { injectedBy, wrapperKind } from './injected';
import { messageText } from '../format/messageText';
import { filesUnder } from './findFiles';
import type { FileReport, ScannedSession, SourceFormat } from './source';

type Rec = Record<string, unknown>;

/**
 * pi: `~/.pi/agent/sessions/--<folder with / as ->--/<time>_<id>.jsonl` (`PI_CODING_AGENT_DIR`
 * moves `~/.pi/agent`). A header line, then entries; from version 2 each entry has an `id` and
 * a `parentId` (a branch is a child of an earlier entry), version 1 files are one line after
 * another. Messages are pi-ai's, as Braid's kernel holds them.
 */
export const pi: SourceFormat = {
  tool: 'pi',
  defaultRoots(env, home) {
    return [path.join(env.PI_CODING_AGENT_DIR || path.join(home, '.pi', 'agent'), 'sessions')];
  },
  async find(root) {
    return filesUnder(root, (file) => file.endsWith('.jsonl'), 2);
  },
  claims(_file, head) {
    return head.some((r) => r.type === 'session' && typeof r.cwd === 'string');
  },
  scan: (ref, report) => scanPi(ref.file, ref.root, report),
};

interface Header {
  id: string;
  cwd: string;
  ts: number;
  version: number;
  model: ModelSnapshot | null;
}

async function scanPi(file: string, root: string, report: FileReport): Promise<ScannedSession | null> {
  const digest = new DigestSink();
  const tree = new SourceTree();
  const records = new RecordCache();
  let header: Header | null = null;
  let title: string | null = null;
  let messages = 0;
  for (const line of readSourceLines(file, root, digest)) {
    const r = recordOf(line);
    if (!r) {
      report.skip('bad' in line ? line.bad : 'not a record');
      continue;
    }
    if (r.type === 'session' && !header) {
      header = headerOf(r, file);
      continue;
    }
    if (r.type === 'session_info' && typeof r.name === 'string') title = r.name;
    if (r.type === 'message') messages++;
    if (typeof r.id === 'string') records.keep(r.id, r, line.length);
    if (typeof r.id === 'string')
      tree.add({
        id: r.id,
        parent: typeof r.parentId === 'string' ? r.parentId : null,
        offset: line.offset,
        length: line.length,
        isMessage: r.type === 'message',
      });
  }
  if (!header || messages === 0) {
    report.skip(header ? 'no messages in the file' : 'no session header (not a pi session)');
    return null;
  }
  const h = header;
  // Version 1 has no tree: one branch, every line in order. From version 2 the newest entry is the leaf pi resumes.
  const newest = [...tree.nodes.values()].at(-1);
  const resumed = newest ? new Set(tree.pathTo(newest.id).map((n) => n.id)) : new Set<string>();
  // A branch ends at an entry no other entry follows (a compaction or a title after its last message included).
  const parents = new Set([...tree.nodes.values()].map((n) => n.parent));
  const ends = [...tree.nodes.values()].filter((n) => !parents.has(n.id) && tree.pathTo(n.id).some((p) => p.isMessage && !resumed.has(p.id)));
  const leaves = h.version >= 2 && newest ? [newest, ...ends] : [];
  return {
    tool: 'pi',
    file,
    root,
    sourceId: h.id,
    cwd: h.cwd,
    title,
    startedAt: h.ts || fileTime(file),
    digest: digest.finish(),
    branches: leaves.length ? leaves.map((n) => n.id) : ['linear'],
    convert: async (branch, target, rep) => {
      const converter = new PiConverter(target, h, rep);
      if (branch === 'linear') {
        let index = 0;
        for (const line of readSourceLines(file, root)) {
          const r = recordOf(line);
          if (r && r.type !== 'session') converter.entry(r, `entry-${index++}`);
        }
      } else for (const { node, value } of readNodes(file, root, tree.pathTo(branch), records)) converter.entry(value as Rec, node.id);
      converter.finish();
    },
  };
}

function headerOf(r: Rec, file: string): Header {
  const version = typeof r.version === 'number' ? r.version : 1;
  const model =
    typeof r.provider === 'string' && typeof r.modelId === 'string' ? { provider: r.provider, id: r.modelId, thinking: text(r.thinkingLevel) || 'off' } : null;
  return { id: text(r.id) || path.basename(file, '.jsonl'), cwd: text(r.cwd), ts: timeOf(r.timestamp, 0), version, model };
}

/** pi's own message roles that reach the model as user text: context, never a prompt. */
const PI_ROLES: Record<string, string> = {
  bashExecution: 'bash-execution',
  custom: 'custom-message',
  hookMessage: 'hook-message',
  branchSummary: 'branch-summary',
  compactionSummary: 'compaction-summary',
};

class PiConverter {
  private model: ModelSnapshot | null;
  private inTurn = false;
  /** Each message's place among those written (a compaction counts the messages it summarized by them). */
  private readonly ordinals = new Map<string, number>();
  private firstKeptOrdinal = 0;
  /** v1 compactions name their first kept entry by index: the source id of each entry, in order. */
  private readonly entryIds: string[] = [];

  constructor(
    private readonly target: ImportTarget,
    header: Header,
    private readonly report: FileReport,
  ) {
    this.model = header.model;
  }

  entry(r: Rec, sourceId: string): void {
    this.entryIds.push(sourceId);
    const ts = timeOf(r.timestamp, 0);
    switch (r.type) {
      case 'message':
        if (isObject(r.message)) this.message(r.message, sourceId, ts);
        return;
      case 'model_change':
        this.model = { provider: text(r.provider), id: text(r.modelId), thinking: this.model?.thinking ?? 'off' };
        return;
      case 'thinking_level_change':
        if (this.model) this.model = { ...this.model, thinking: text(r.thinkingLevel) || 'off' };
        return;
      case 'compaction':
        this.compaction(r, ts);
        return;
      case 'branch_summary':
        this.message({ role: 'branchSummary', summary: r.summary, timestamp: ts }, sourceId, ts);
        return;
      case 'custom_message':
        this.message({ role: 'custom', content: r.content, timestamp: ts }, sourceId, ts);
        return;
      default:
        this.report.skip(`${text(r.type) || 'untyped'} entries (not part of the conversation)`);
    }
  }

  private message(m: Rec, sourceId: string, ts: number): void {
    const message = this.kernelMessage(m, ts);
    if (!message) {
      this.report.skip(`${text(m.role) || 'role-less'} messages not in pi's shape`);
      return;
    }
    const kind = message.role === 'user' ? (PI_ROLES[text(m.role)] ?? wrapperKind(messageText(message))) : null;
    if (message.role === 'user' && kind === null) {
      if (this.inTurn) this.target.endTurn();
      this.target.beginTurn(ts, this.model);
      this.inTurn = true;
    }
    this.ordinals.set(sourceId, this.ordinals.size);
    // The entry's time is when pi wrote the message down, at its end (the message's own is when it began).
    this.target.message({ sourceId, ts: ts || timeOf(m.timestamp, 0), message, ...(kind ? { injected: injectedBy('pi', kind) } : {}) });
  }

  /** pi-ai's messages are the kernel's; pi's own roles (a command the user ran, a summary) reach the model as user text. */
  private kernelMessage(m: Rec, ts: number): Message | null {
    switch (m.role) {
      case 'user':
        return (
          typeof m.content === 'string' || Array.isArray(m.content) ? { ...m, role: 'user', timestamp: timeOf(m.timestamp, ts) } : null
        ) as Message | null;
      case 'assistant':
        return this.answer(m, ts);
      case 'toolResult':
        return Array.isArray(m.content) && typeof m.toolCallId === 'string' ? ({ ...m, isError: m.isError === true } as unknown as Message) : null;
      case 'bashExecution':
        return userMessage(`Ran \`${text(m.command)}\`${typeof m.exitCode === 'number' ? ` (exit code ${m.exitCode})` : ''}:\n${text(m.output)}`, ts);
      case 'custom':
      case 'hookMessage':
        return userMessage(typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''), ts);
      case 'branchSummary':
      case 'compactionSummary':
        return userMessage(`The conversation so far, summarized:\n${text(m.summary)}`, ts);
      default:
        return null;
    }
  }

  private answer(m: Rec, ts: number): AssistantMessage {
    const usage = isObject(m.usage) ? m.usage : {};
    const cost = isObject(usage.cost) && typeof usage.cost.total === 'number' ? usage.cost.total : undefined;
    const content = (Array.isArray(m.content) ? m.content.filter(isObject) : []).map((b): AnswerBlock => {
      if (b.type !== 'toolCall') return b as unknown as AnswerBlock;
      const call = mapToolCall('pi', text(b.name), isObject(b.arguments) ? b.arguments : {}, '');
      return { type: 'toolCall', id: text(b.id), name: call.name, arguments: call.arguments };
    });
    const stop = text(m.stopReason);
    return assistantMessage({
      provider: text(m.provider) || this.model?.provider || 'unknown',
      api: text(m.api) || 'unknown',
      model: text(m.model) || this.model?.id || 'unknown',
      content,
      tokens: callTokens(usage.input, usage.output, usage.cacheRead, usage.cacheWrite),
      stopReason: stop === 'length' || stop === 'toolUse' || stop === 'error' || stop === 'aborted' ? stop : 'stop',
      ts: timeOf(m.timestamp, ts),
      ...(cost !== undefined ? { cost } : {}),
      ...(typeof m.errorMessage === 'string' ? { errorMessage: m.errorMessage } : {}),
    });
  }

  private compaction(r: Rec, ts: number): void {
    // Version 1 counts entries from the header (entry 0).
    const byIndex = typeof r.firstKeptEntryIndex === 'number' ? this.entryIds[r.firstKeptEntryIndex - 1] : undefined;
    const firstKept = typeof r.firstKeptEntryId === 'string' ? r.firstKeptEntryId : byIndex;
    const ordinal = firstKept === undefined ? undefined : this.ordinals.get(firstKept);
    if (firstKept === undefined || ordinal === undefined) {
      this.report.skip('compactions whose first kept entry is not in the branch');
      return;
    }
    this.target.compaction(ts, text(r.summary), firstKept, Math.max(0, ordinal - this.firstKeptOrdinal));
    this.firstKeptOrdinal = ordinal;
  }

  finish(): void {
    if (this.inTurn) this.target.endTurn();
  }
}
