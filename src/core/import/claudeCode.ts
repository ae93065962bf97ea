import fs from 'node:fs';
import path from 'node:path';
import type { StopReason } from '@mariozechner/pi-ai';
import type { ImportedMessage, ImportTarget } from './importLog';
import {
  assistantMessage,
  callTokens,
  imageBlock,
  isObject,
  text,
  fileTime,
  timeOf,
  toolResult,
  userMessage,
  type AnswerBlock,
  type CallTokens,
  type PromptBlock,
} from './messages';
import { DigestSink, readSourceLines } from './sourceLines';
import { readNodes, RecordCache, recordOf, SourceTree, type TreeNode } from './tree';
import { mapToolCall } from './toolMap';
import { filesUnder } from './findFiles';
import { pathSegment, readSource, SourceRefusedError } from '../fs/sourceFile';
import { closesTurn, injectedBy, isInterruption, startsTurn, wrapperKind } from './injected';
import type { InjectedContext } from '../wire/records';
import type { FileReport, ScannedSession, SourceFormat } from './source';

type Rec = Record<string, unknown>;

/** Record types that are notes beside the conversation (hooks, titles, UI state), not part of it. */
const MESSAGE_TYPES = new Set(['user', 'assistant']);

/**
 * Claude Code: `~/.claude/projects/<folder with / and . as ->/<session>.jsonl`, one record a
 * line, `parentUuid` making a tree (a rewind or an edit branches it), subagents in
 * `<session>/subagents/agent-<id>.jsonl` (older versions: beside the session, or inline as
 * `isSidechain` records). `CLAUDE_CONFIG_DIR` moves the folder.
 */
export const claudeCode: SourceFormat = {
  tool: 'claude-code',
  defaultRoots(env, home) {
    return [path.join(env.CLAUDE_CONFIG_DIR || path.join(home, '.claude'), 'projects')];
  },
  async find(root) {
    // Subagent logs are read with their session, not as sessions of their own.
    return filesUnder(root, (file) => file.endsWith('.jsonl') && subagentOf(file) === null, 3);
  },
  claims(_file, head) {
    return head.some((r) => typeof r.sessionId === 'string' || typeof r.leafUuid === 'string' || 'parentUuid' in r);
  },
  refusal(file) {
    const session = subagentOf(file);
    return session === null ? null : `a subagent's log: it is imported with its session${session ? `, ${session}` : ''}; name that file`;
  },
  scan: (ref, report) => scanClaudeCode(ref.file, ref.root, report),
};

/** For a subagent's log (`agent-<id>.jsonl`, alone or under `<session>/subagents/`), the session file it belongs to when it is there ('' when not found); null for any other file. */
function subagentOf(file: string): string | null {
  if (!path.basename(file).startsWith('agent-') && !file.includes(`${path.sep}subagents${path.sep}`)) return null;
  const parts = file.split(path.sep);
  const at = parts.lastIndexOf('subagents');
  const session = at > 0 ? `${parts.slice(0, at).join(path.sep)}.jsonl` : '';
  return session && fs.existsSync(session) ? session : '';
}

interface Scan {
  tree: SourceTree;
  /** A compaction boundary's root and the record it logically follows (the history before it is kept). */
  bridges: Map<string, string>;
  sessionId: string | null;
  cwd: string | null;
  titles: { custom: string | null; ai: string | null; summaries: Map<string, string> };
  firstTs: number;
  /** Inline subagent records, by agent (or, before agent ids, by their root); and the ids of all of them. */
  sidechains: Map<string, TreeNode[]>;
  sidechainIds: Set<string>;
  /** The records read, kept when the file is small: a branch is then written without reading the file again. */
  records: RecordCache;
}

async function scanClaudeCode(file: string, root: string, report: FileReport): Promise<ScannedSession | null> {
  const digest = new DigestSink();
  const scan: Scan = {
    tree: new SourceTree(),
    bridges: new Map(),
    sessionId: null,
    cwd: null,
    titles: { custom: null, ai: null, summaries: new Map() },
    firstTs: 0,
    sidechains: new Map(),
    sidechainIds: new Set(),
    records: new RecordCache(),
  };
  for (const line of readSourceLines(file, root, digest)) {
    const r = recordOf(line);
    if (!r) {
      report.skip('bad' in line ? line.bad : 'not a record');
      continue;
    }
    noteRecord(scan, r, line.offset, line.length, report);
  }
  const leaves = scan.tree.leaves((n) => !scan.sidechainIds.has(n.id));
  const leaf = leaves.at(-1);
  if (!leaf) {
    report.skip('no conversation in the file');
    return null;
  }
  const mainPath = branchPath(scan, leaf.id);
  const branches = [leaf.id, ...leaves.filter((n) => n !== leaf && isFork(mainPath, branchPath(scan, n.id))).map((n) => n.id)];
  const sessionId = scan.sessionId ?? path.basename(file, '.jsonl');
  const { custom, ai, summaries } = scan.titles;
  return {
    tool: 'claude-code',
    file,
    root,
    sourceId: sessionId,
    cwd: scan.cwd ?? '',
    title: custom ?? ai ?? summaries.get(leaf.id) ?? null,
    startedAt: scan.firstTs || fileTime(file),
    digest: digest.finish(),
    branches,
    convert: (branch, target, rep) => convertBranch({ file, root }, scan, branchPath(scan, branch), target, rep, branch === leaf.id),
  };
}

/**
 * The records of the branch ending at `leaf`, in file order: the chain up to the root (through
 * compaction boundaries), and the results of parallel tool calls, which Claude Code hangs off
 * the answer record that made the call, beside the chain.
 */
function branchPath(scan: Scan, leaf: string): TreeNode[] {
  const chain = scan.tree.pathTo(leaf, (node) => scan.bridges.get(node.id) ?? null);
  // On the path or not, by each node's place in the file: a byte a record (a Set of a million ids would not fit a small heap).
  const onPath = new Uint8Array(scan.tree.nodes.size);
  for (const n of chain) onPath[n.order] = 1;
  const ids = { has: (id: string) => onPath[scan.tree.nodes.get(id)?.order ?? -1] === 1 };
  const answers = new Set(chain.filter((n) => n.kind === 'answer').map((n) => n.key));
  // Beside the chain: the records of an answer on it that hang off one another (Claude Code writes
  // each of an answer's parallel calls as a record of its own, and the chain goes on from one of
  // them), and the results of their calls.
  // A pass over the nodes per level beside the chain (usually one or two), no index of children kept: memory stays the tree's.
  const beside: TreeNode[] = [];
  for (let added = true; added;) {
    added = false;
    for (const node of scan.tree.nodes.values()) {
      if (onPath[node.order] === 1 || node.parent === null || !ids.has(node.parent)) continue;
      if (!(node.kind === 'result' || (node.kind === 'answer' && answers.has(node.key)))) continue;
      onPath[node.order] = 1;
      beside.push(node);
      added = true;
    }
  }
  return beside.length ? [...chain, ...beside].sort((a, b) => a.order - b.order) : chain;
}

/** A branch is a fork of the resumed one when it holds a prompt or an answer that one has not (a rewind or an edit), not merely a parallel call's side record. */
function isFork(main: readonly TreeNode[], branch: readonly TreeNode[]): boolean {
  const ids = new Set(main.map((n) => n.id));
  const answers = new Set(main.filter((n) => n.kind === 'answer').map((n) => n.key));
  return branch.some((n) => !ids.has(n.id) && (n.kind === 'prompt' || (n.kind === 'answer' && !answers.has(n.key))));
}

/** What pass one keeps of a record: its place in the tree and the session's facts. */
function noteRecord(scan: Scan, r: Rec, offset: number, length: number, report: FileReport): void {
  const type = text(r.type);
  if (type === 'summary' && typeof r.leafUuid === 'string') scan.titles.summaries.set(r.leafUuid, text(r.summary));
  if (type === 'custom-title' && typeof r.customTitle === 'string') scan.titles.custom = r.customTitle;
  if (type === 'ai-title' && typeof r.aiTitle === 'string') scan.titles.ai = r.aiTitle;
  if (typeof r.uuid !== 'string') {
    if (!['summary', 'custom-title', 'ai-title'].includes(type)) report.skip(`${type || 'untyped'} records (not part of the conversation)`);
    return;
  }
  scan.sessionId ??= typeof r.sessionId === 'string' ? r.sessionId : null;
  if (!scan.cwd && typeof r.cwd === 'string' && r.cwd) scan.cwd = r.cwd;
  if (!scan.firstTs) scan.firstTs = timeOf(r.timestamp, 0);
  const parent = typeof r.parentUuid === 'string' ? r.parentUuid : null;
  if (parent === null && typeof r.logicalParentUuid === 'string') scan.bridges.set(r.uuid, r.logicalParentUuid);
  const isMessage = MESSAGE_TYPES.has(type) && isObject(r.message);
  scan.tree.add({ id: r.uuid, parent, offset, length, isMessage, ...(isMessage ? kindOf(type, r.message as Rec) : {}) });
  scan.records.keep(r.uuid, r, length);
  if (r.isSidechain === true) {
    // Inline subagent records: grouped by their agent (or, in versions before agent ids, their root).
    const key = typeof r.agentId === 'string' ? r.agentId : rootOf(scan.tree, r.uuid);
    const group = scan.sidechains.get(key) ?? [];
    group.push(scan.tree.nodes.get(r.uuid)!);
    scan.sidechains.set(key, group);
    scan.sidechainIds.add(r.uuid);
  } else if (!isMessage && !['system', 'attachment', 'progress'].includes(type)) {
    report.skip(`${type || 'untyped'} records (not part of the conversation)`);
  }
}

function kindOf(type: string, message: Rec): Pick<TreeNode, 'kind' | 'key'> {
  if (type === 'assistant') return { kind: 'answer', key: text(message.id) };
  const content = message.content;
  const isResult = Array.isArray(content) && content.some((b) => isObject(b) && b.type === 'tool_result');
  return { kind: isResult ? 'result' : 'prompt' };
}

function rootOf(tree: SourceTree, id: string): string {
  let node = tree.nodes.get(id);
  const seen = new Set<string>();
  while (node?.parent && !seen.has(node.id)) {
    seen.add(node.id);
    const up = tree.nodes.get(node.parent);
    if (!up) break;
    node = up;
  }
  return node?.id ?? id;
}

/** One answer as Claude Code writes it: one record per content block, the same `message.id` on each. */
interface Answer {
  id: string;
  sourceId: string;
  ts: number;
  model: string;
  blocks: AnswerBlock[];
  tokens: CallTokens;
  stopReason: StopReason;
  error?: string;
}

/** A source file and the folder that bounds its reads. */
interface Where {
  readonly file: string;
  readonly root: string;
}

/** Converts one path of the tree (the resumed branch, a fork's branch, a subagent's records) in order. */
async function convertBranch(where: Where, scan: Scan, nodes: TreeNode[], target: ImportTarget, report: FileReport, resumed: boolean): Promise<void> {
  const finder = new SubagentFinder(where, scan);
  const converter = new PathConverter(target, scan.cwd ?? '', report, finder);
  for (const { value } of readNodes(where.file, where.root, nodes, scan.records)) converter.record(value as Rec);
  // Subagent files no task result names (a call cut short, a newer layout) still belong to the session: with its resumed branch's last turn.
  if (resumed) for (const orphan of finder.unclaimedFiles()) converter.addSubagent(orphan.key, orphan.title, orphan.source);
  converter.finish();
}

/** Where a subagent's records are: a file of its own (all of it), or some records of the session's file. */
interface SubagentSource {
  readonly file: string;
  readonly nodes: TreeNode[];
}

/**
 * Finds the records of the subagent a task call ran: its own file (2.1.x: `<session>/subagents/`;
 * 2.0.x: beside the session), else the session's inline sidechain records of its agent id, else
 * (versions before agent ids) the next inline sidechain nobody claimed, in file order. An agent
 * id is a name in a folder of the session's, never a path of its own.
 */
class SubagentFinder {
  private readonly claimed = new Set<string>();

  constructor(
    private readonly where: Where,
    private readonly scan: Scan,
  ) {}

  private get subagentsDir(): string {
    return path.join(path.dirname(this.where.file), path.basename(this.where.file, '.jsonl'), 'subagents');
  }

  find(agentId: string | null): { key: string; source: SubagentSource } | null {
    const name = agentId ? pathSegment(`agent-${agentId}.jsonl`) : null;
    if (name) {
      for (const candidate of [path.join(this.subagentsDir, name), path.join(path.dirname(this.where.file), name)]) {
        if (fs.existsSync(candidate) && !this.claimed.has(candidate)) {
          this.claimed.add(candidate);
          return { key: agentId!, source: { file: candidate, nodes: [] } };
        }
      }
    }
    const own = agentId ? (this.scan.sidechains.get(agentId) ?? []) : [];
    // Records of an agent id without their root (their first records had no id yet) go with the next root nobody claimed.
    const root = own.some((n) => n.parent === null) ? undefined : this.nextRootGroup();
    if (!own.length && !root) return null;
    if (agentId) this.claimed.add(agentId);
    const nodes = [...own, ...(root?.nodes ?? [])].sort((a, b) => a.order - b.order);
    return { key: agentId ?? root!.key, source: { file: this.where.file, nodes } };
  }

  private nextRootGroup(): { key: string; nodes: TreeNode[] } | undefined {
    for (const [key, nodes] of this.scan.sidechains) {
      if (this.claimed.has(key) || !nodes.some((n) => n.id === key)) continue; // a group keyed by its root's id
      this.claimed.add(key);
      return { key, nodes };
    }
    return undefined;
  }

  unclaimedFiles(): Array<{ key: string; title: string; source: SubagentSource }> {
    return filesUnder(this.subagentsDir, (f) => /agent-[^/\\]+\.jsonl$/.test(f) && !this.claimed.has(f), 0).map(({ file }) => {
      const key = path.basename(file, '.jsonl').slice('agent-'.length);
      return { key, title: this.metaTitle(file.replace(/\.jsonl$/, '.meta.json')) ?? 'subagent', source: { file, nodes: [] } };
    });
  }

  /** A subagent's description from its `.meta.json`, when there is one (a small file of the session's folder). */
  private metaTitle(file: string): string | null {
    try {
      const meta: unknown = JSON.parse(readSource(file, this.where.root, 1 << 20).toString('utf8'));
      const m = isObject(meta) ? meta : {};
      return text(m.description) || text(m.agentType) || null;
    } catch {
      return null;
    }
  }

  /** The folder a subagent's file must lie in. */
  get root(): string {
    return this.where.root;
  }

  /** The session file's records a first read kept (inline subagent records are among them). */
  get records(): RecordCache {
    return this.scan.records;
  }
}

/** A user-role message held until it is known which turn it goes with. */
type Held = { sourceId: string; ts: number; message: ReturnType<typeof userMessage>; injected: InjectedContext };

class PathConverter {
  private answer: Answer | null = null;
  private results: { sourceId: string; ts: number; message: ReturnType<typeof toolResult> }[] = [];
  /** Injected context (a reminder, a caveat, a command's output) waiting for what follows it: a turn of its own, or the one it is in. */
  private held: Held[] = [];
  private readonly toolNames = new Map<string, string>();
  private compactionAt: { ts: number; summary: string } | null = null;
  private inTurn = false;
  /** The git branch of the last line that named one (Claude Code writes `gitBranch` on each line). */
  private branch: string | undefined;
  private failed: string | null = null;
  private interrupted = false;

  constructor(
    private readonly target: ImportTarget,
    private readonly cwd: string,
    private readonly report: FileReport,
    private readonly subagentsOf: SubagentFinder | null,
  ) {}

  record(r: Rec): void {
    const type = text(r.type);
    if (typeof r.gitBranch === 'string') this.branch = r.gitBranch; // on every line: the branch as it was written
    const ts = timeOf(r.timestamp, 0);
    if (type === 'assistant' && isObject(r.message)) this.assistant(r, r.message, ts);
    else if (type === 'user' && isObject(r.message)) this.user(r, r.message, ts);
    else if (type === 'system' && r.subtype === 'local_command' && typeof r.content === 'string')
      // A local command's output (`/context`): recorded beside the conversation, context of the turn it ran in.
      this.user(r, { role: 'user', content: r.content }, ts);
  }

  private user(r: Rec, message: Rec, ts: number): void {
    const content = message.content;
    const blocks = Array.isArray(content) ? content.filter(isObject) : [];
    const results = blocks.filter((b) => b.type === 'tool_result');
    if (results.length) {
      for (const b of results) this.toolResult(r, b, ts);
      return;
    }
    const prompt = typeof content === 'string' ? content : blocks.map(promptBlock).filter((b): b is PromptBlock => b !== null);
    const sourceId = String(r.uuid);
    if (r.isCompactSummary === true) {
      this.flush();
      this.compactionAt = { ts, summary: typeof prompt === 'string' ? prompt : prompt.map((b) => (b.type === 'text' ? b.text : '')).join('\n') };
      return;
    }
    const user = userMessage(prompt, ts);
    const kind = wrapperKind(typeof prompt === 'string' ? prompt : (prompt.find((b) => b.type === 'text')?.text ?? '')) ?? (r.isMeta === true ? 'meta' : null);
    this.flush();
    if (kind === null) {
      // A prompt: a turn of its own, with the context held before it.
      this.startTurn(ts);
      this.emitHeld();
      this.emit({ sourceId, ts, message: user });
      return;
    }
    const held = { sourceId, ts, message: user, injected: injectedBy('claude-code', kind) };
    if (closesTurn(kind)) {
      // A command's output, or the person stopping the turn: it belongs to the turn it follows.
      this.emitHeld();
      this.emit(held);
      if (this.inTurn && isInterruption(kind)) this.interrupted = true;
      return;
    }
    this.held.push(held);
  }

  private startTurn(ts: number): void {
    this.endTurn();
    this.target.beginTurn(ts, null, this.branch);
    this.inTurn = true;
  }

  /** Context held until now goes with the turn open (or a turn of its own when none is). */
  private emitHeld(): void {
    for (const m of this.held.splice(0)) this.emit(m);
  }

  private toolResult(r: Rec, b: Rec, ts: number): void {
    const callId = text(b.tool_use_id);
    const name = this.toolNames.get(callId) ?? 'unknown';
    const content =
      typeof b.content === 'string'
        ? [{ type: 'text' as const, text: b.content }]
        : Array.isArray(b.content)
          ? b.content
              .filter(isObject)
              .map(promptBlock)
              .filter((x): x is PromptBlock => x !== null)
          : [];
    const message = toolResult(callId, name, content, b.is_error === true, ts, name === 'task' ? this.taskRun(r) : undefined);
    this.results.push({ sourceId: `${String(r.uuid)}:${callId}`, ts, message });
    if (!this.answer) this.flushResults();
  }

  /** A task call's subagent, when its records are found: the result names Braid's agent as a task run's result does. */
  private taskRun(r: Rec): { agentId: string } | undefined {
    const result = isObject(r.toolUseResult) ? r.toolUseResult : {};
    // 2.1.x names the agent in the result; 2.0.x on the record.
    const agentId = typeof result.agentId === 'string' ? result.agentId : typeof r.agentId === 'string' ? r.agentId : null;
    const found = this.subagentsOf?.find(agentId);
    if (!found) return undefined;
    return { agentId: this.addSubagent(found.key, text(result.description) || text(result.prompt).slice(0, 60) || 'subagent', found.source) };
  }

  /** A subagent whose records are written after the path; returns Braid's id for it. */
  addSubagent(key: string, title: string, source: SubagentSource): string {
    const sub = this.target.subagent(`claude-code:${key}`, title);
    this.convertSubagent(sub.target, source);
    return sub.agentId;
  }

  /** Writes a subagent's records now, while the turn that ran it is open (its calls' usage belongs to that turn). */
  private convertSubagent(target: ImportTarget, source: SubagentSource): void {
    const child = new PathConverter(target, this.cwd, this.report, null);
    const root = this.subagentsOf!.root;
    try {
      if (source.nodes.length) for (const { value } of readNodes(source.file, root, source.nodes, this.subagentsOf!.records)) child.record(value as Rec);
      else
        for (const line of readSourceLines(source.file, root)) {
          const r = recordOf(line);
          if (r) child.record(r);
          else child.report.skip(`${'bad' in line ? line.bad : 'not a record'} (a subagent's log)`);
        }
    } catch (err) {
      if (!(err instanceof SourceRefusedError)) throw err;
      this.report.skip(`subagent logs not read: ${path.basename(source.file)} is ${err.message}`);
    }
    child.finish();
  }

  private assistant(r: Rec, message: Rec, ts: number): void {
    const id = text(message.id) || String(r.uuid);
    if (this.answer && this.answer.id !== id) this.flush();
    if (!this.answer) {
      this.flushResults();
      this.answer = { id, sourceId: String(r.uuid), ts, model: text(message.model), blocks: [], tokens: callTokens(0, 0, 0, 0), stopReason: 'stop' };
    }
    const answer = this.answer;
    const usage = isObject(message.usage) ? message.usage : {};
    const tokens = callTokens(usage.input_tokens, usage.output_tokens, usage.cache_read_input_tokens, usage.cache_creation_input_tokens);
    // The records of one answer repeat its usage, the last with the final output count.
    if (tokens.output >= answer.tokens.output) answer.tokens = tokens;
    for (const b of Array.isArray(message.content) ? message.content.filter(isObject) : []) {
      const block = this.answerBlock(b);
      if (block) answer.blocks.push(block);
    }
    const stop = text(message.stop_reason);
    answer.stopReason = stop === 'max_tokens' ? 'length' : stop === 'tool_use' || answer.blocks.some((b) => b.type === 'toolCall') ? 'toolUse' : 'stop';
    if (r.isApiErrorMessage === true || answer.model === '<synthetic>') {
      answer.stopReason = 'error';
      answer.error = text(r.error) || answer.blocks.map((b) => (b.type === 'text' ? b.text : '')).join(' ') || 'The model call failed.';
    }
  }

  private answerBlock(b: Rec): AnswerBlock | null {
    switch (b.type) {
      case 'text':
        return { type: 'text', text: text(b.text) };
      case 'thinking':
        return { type: 'thinking', thinking: text(b.thinking), ...(typeof b.signature === 'string' ? { thinkingSignature: b.signature } : {}) };
      case 'redacted_thinking':
        return { type: 'thinking', thinking: '', redacted: true, thinkingSignature: text(b.data) } as AnswerBlock;
      case 'tool_use': {
        const call = mapToolCall('claude-code', text(b.name), isObject(b.input) ? b.input : {}, this.cwd);
        const id = text(b.id) || `call-${this.toolNames.size + 1}`;
        this.toolNames.set(id, call.name);
        return { type: 'toolCall', id, name: call.name, arguments: call.arguments };
      }
      default:
        this.report.skip(`${text(b.type) || 'untyped'} answer blocks`);
        return null;
    }
  }

  private flush(): void {
    const a = this.answer;
    if (a) {
      this.answer = null;
      const message = assistantMessage({
        provider: 'anthropic',
        api: 'anthropic-messages',
        model: a.model || 'unknown',
        content: a.blocks,
        tokens: a.tokens,
        stopReason: a.stopReason,
        ts: a.ts,
        ...(a.error ? { errorMessage: a.error } : {}),
      });
      // A command the person ran (a custom slash command) whose expansion the model answers is a turn of its own.
      if (!this.inTurn || this.held.some((h) => startsTurn(h.injected.kind))) this.startTurn(a.ts);
      this.emitHeld();
      this.emit({ sourceId: a.sourceId, ts: a.ts, message });
      this.failed = a.stopReason === 'error' ? (a.error ?? null) : null;
    }
    this.flushResults();
  }

  private flushResults(): void {
    if (this.results.length) this.emitHeld();
    for (const r of this.results.splice(0)) this.emit(r);
  }

  private emit(m: ImportedMessage): void {
    if (this.compactionAt) {
      // The summary replaces what came before; the history goes on with this message.
      this.target.compaction(this.compactionAt.ts, this.compactionAt.summary, null, 0);
      this.compactionAt = null;
    }
    this.target.message(m);
  }

  private endTurn(): void {
    if (!this.inTurn) return;
    this.target.endTurn(this.failed ? 'failed' : this.interrupted ? 'cancelled' : 'completed', this.failed ?? undefined);
    this.inTurn = false;
    this.failed = null;
    this.interrupted = false;
  }

  /** Ends the last turn (the subagents its task calls ran were written as they were met). */
  finish(): void {
    this.flush();
    this.emitHeld();
    this.endTurn();
  }
}

function promptBlock(b: Rec): PromptBlock | null {
  if (b.type === 'text') return { type: 'text', text: text(b.text) };
  if (b.type === 'image') {
    const source = isObject(b.source) ? b.source : {};
    return imageBlock(source.media_type, source.data);
  }
  return null;
}
