import path from 'node:path';
import type { ImportedMessage, ImportTarget } from './importLog';
import { closesTurn, injectedBy, isInterruption, startsTurn, wrapperKind } from './injected';
import type { ModelSnapshot } from '../wire/records';
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
import { DigestSink, firstRecord, readSourceLines } from './sourceLines';
import { recordOf } from './tree';
import { mapToolCall } from './toolMap';
import { filesUnder } from './findFiles';
import type { FileReport, ScannedSession, SourceFormat } from './source';

type Rec = Record<string, unknown>;

/**
 * Codex: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` and `~/.codex/archived_sessions/`
 * (`CODEX_HOME` moves `~/.codex`). Each line is `{timestamp, type, payload}`: the session's meta,
 * a turn's context (its model), the model-visible history (`response_item`, Responses API
 * items) and UI events (`event_msg`: token counts, aborts, errors). No ids link the lines: file
 * order is the order, and there are no branches.
 */
export const codex: SourceFormat = {
  tool: 'codex',
  defaultRoots(env, home) {
    const root = env.CODEX_HOME || path.join(home, '.codex');
    return [path.join(root, 'sessions'), path.join(root, 'archived_sessions')];
  },
  async find(root) {
    return filesUnder(root, (file) => file.endsWith('.jsonl'), 4);
  },
  claims(_file, head) {
    return head.some((r) => 'payload' in r && typeof r.type === 'string');
  },
  async identify(ref) {
    const first = firstRecord(ref.file, ref.root);
    const meta = first?.type === 'session_meta' && isObject(first.payload) ? first.payload : null;
    if (!meta || typeof meta.id !== 'string') return null;
    const parent = threadSpawn(meta)?.parent_thread_id;
    return { sourceId: meta.id, ...(typeof parent === 'string' ? { parentSourceId: parent } : {}) };
  },
  scan: (ref, report) => scanCodex(ref.file, ref.root, report),
};

/** A child thread's spawn record in its meta (`source.subagent.thread_spawn`), if it is one. */
function threadSpawn(meta: Rec): Rec | null {
  return isObject(meta.source) && isObject(meta.source.subagent) && isObject(meta.source.subagent.thread_spawn) ? meta.source.subagent.thread_spawn : null;
}

/** A rollout up to this size is kept parsed between its scan and its conversion; a larger one is read twice. */
const KEEP_BYTES = 8 << 20;

async function scanCodex(file: string, root: string, report: FileReport): Promise<ScannedSession | null> {
  const digest = new DigestSink();
  let meta: Rec | null = null;
  let items = 0;
  let typed = 0;
  // The records of a small file are kept, so that writing it reads no byte again.
  let kept: Array<[Rec, number]> | null = [];
  let keptBytes = 0;
  for (const line of readSourceLines(file, root, digest)) {
    const r = recordOf(line);
    if (!r) {
      report.skip('bad' in line ? line.bad : 'not a record');
      continue;
    }
    keptBytes += line.length;
    if (kept && keptBytes > KEEP_BYTES) kept = null;
    kept?.push([r, line.line]);
    // A child thread's file repeats its parents' meta after its own: the first is this thread's.
    if (r.type === 'session_meta' && !meta && isObject(r.payload)) meta = r.payload;
    if (r.type === 'response_item') items++;
    if (r.type === 'event_msg' && isObject(r.payload) && r.payload.type === 'user_message') typed++;
  }
  if (!meta || items + typed === 0) {
    report.skip(meta ? 'no conversation in the file' : 'no session_meta line (not a Codex rollout)');
    return null;
  }
  const m = meta;
  const nickname = text(threadSpawn(m)?.agent_nickname);
  return {
    tool: 'codex',
    file,
    root,
    sourceId: text(m.id) || path.basename(file, '.jsonl'),
    cwd: text(m.cwd),
    title: nickname || null,
    startedAt: timeOf(m.timestamp, fileTime(file)),
    digest: digest.finish(),
    branches: ['linear'],
    convert: async (_branch, target, rep) => {
      // Rollouts that keep no model-visible history (some child threads) have the typed prompts and answers as events.
      const branch = isObject(m.git) ? text(m.git.branch) : '';
      const converter = new CodexConverter(target, text(m.cwd), text(m.model_provider) || 'openai', rep, items === 0, branch);
      if (kept) for (const [r, line] of kept) converter.line(r, line);
      else
        for (const line of readSourceLines(file, root)) {
          const r = recordOf(line);
          if (r) converter.line(r, line.line);
        }
      converter.finish();
    },
  };
}

interface Answer {
  sourceId: string;
  ts: number;
  blocks: AnswerBlock[];
  tokens: CallTokens;
}

class CodexConverter {
  private model: ModelSnapshot | null = null;
  private answer: Answer | null = null;
  private inTurn = false;
  private outcome: { outcome: 'cancelled' | 'failed'; error?: string } | null = null;
  private readonly toolNames = new Map<string, string>();
  private item = 0;
  /** Context Codex injected, held until what follows it says which turn it goes with. */
  private held: ImportedMessage[] = [];
  /** Results of the pending answer's calls, written after it. */
  private readonly outputs: ImportedMessage[] = [];

  constructor(
    private readonly target: ImportTarget,
    private readonly cwd: string,
    private readonly provider: string,
    private readonly report: FileReport,
    private readonly fromEvents: boolean,
    /** The branch session_meta's `git` names: Codex records it once, for the whole session. */
    private readonly branch: string,
  ) {}

  line(r: Rec, line: number): void {
    const p = isObject(r.payload) ? r.payload : {};
    const ts = timeOf(r.timestamp, 0);
    const sourceId = `l${line}.${this.item++}`;
    switch (r.type) {
      case 'session_meta':
        return;
      case 'turn_context':
        if (typeof p.model === 'string') this.model = { provider: this.provider, id: p.model, thinking: text(p.effort) || 'off' };
        return;
      case 'response_item':
        this.responseItem(p, sourceId, ts);
        return;
      case 'event_msg':
        this.event(p, sourceId, ts);
        return;
      case 'compacted':
        this.flush();
        this.target.compaction(ts, text(p.message), null, 0);
        return;
      case 'token_usage_record':
        // 0.17x: one per model response, right after its items, before its calls' outputs.
        if (isObject(p.usage)) this.usage(p.usage);
        return;
      default:
        this.report.skip(`${text(r.type) || 'untyped'} lines (not part of the conversation)`);
    }
  }

  private responseItem(p: Rec, sourceId: string, ts: number): void {
    switch (p.type) {
      case 'message':
        if (p.role === 'assistant') this.answerOf(sourceId, ts).blocks.push(...contentText(p.content).map((t): AnswerBlock => ({ type: 'text', text: t })));
        else if (p.role === 'user') this.user(p, sourceId, ts);
        else this.report.skip(`${text(p.role)} messages (instructions, not the conversation)`);
        return;
      case 'reasoning': {
        const summary = Array.isArray(p.summary)
          ? p.summary
              .filter(isObject)
              .map((s) => text(s.text))
              .join('\n')
          : '';
        this.answerOf(sourceId, ts).blocks.push({ type: 'thinking', thinking: summary });
        return;
      }
      case 'function_call':
      case 'custom_tool_call':
      case 'local_shell_call':
        this.call(p, sourceId, ts);
        return;
      case 'function_call_output':
      case 'custom_tool_call_output':
        this.output(p, sourceId, ts);
        return;
      default:
        this.report.skip(`${text(p.type) || 'untyped'} history items`);
    }
  }

  private user(p: Rec, sourceId: string, ts: number): void {
    const blocks: PromptBlock[] = (Array.isArray(p.content) ? p.content.filter(isObject) : []).flatMap((c): PromptBlock[] => {
      if (c.type === 'input_text') return [{ type: 'text', text: text(c.text) }];
      if (c.type === 'input_image') return [imageOf(text(c.image_url))];
      return [];
    });
    this.flush();
    const kind = injectedKind(p, blocks);
    const message: ImportedMessage = { sourceId, ts, message: userMessage(blocks, ts), ...(kind ? { injected: injectedBy('codex', kind) } : {}) };
    if (kind !== null && closesTurn(kind)) {
      // An interruption (or a command's output) belongs to the turn it follows.
      this.emitHeld();
      this.emit(message);
      if (isInterruption(kind)) this.outcome = { outcome: 'cancelled' };
      return;
    }
    if (kind !== null) {
      this.held.push(message); // with the prompt it comes before, or the turn it is in when an answer follows
      return;
    }
    this.endTurn();
    this.target.beginTurn(ts, this.model, this.branch);
    this.inTurn = true;
    this.emitHeld();
    this.target.message(message);
  }

  /** Context held until now goes with the turn open (or one of its own when none is). */
  private emitHeld(): void {
    for (const m of this.held.splice(0)) this.emit(m);
  }

  private call(p: Rec, sourceId: string, ts: number): void {
    const id = text(p.call_id) || text(p.id) || sourceId;
    let name = text(p.name);
    let args: Rec;
    if (p.type === 'local_shell_call') {
      name = 'shell';
      args = isObject(p.action) && isObject(p.action.exec) ? { command: p.action.exec.command } : {};
    } else if (p.type === 'custom_tool_call') args = { input: p.input };
    else args = parseArguments(p.arguments);
    const mapped = mapToolCall('codex', name, args, this.cwd);
    this.toolNames.set(id, mapped.name);
    this.answerOf(sourceId, ts).blocks.push({ type: 'toolCall', id, name: mapped.name, arguments: mapped.arguments });
  }

  private output(p: Rec, sourceId: string, ts: number): void {
    const id = text(p.call_id);
    const out = p.output;
    const body = typeof out === 'string' ? out : isObject(out) ? text(out.content) || JSON.stringify(out) : '';
    const failed = isObject(out) && out.success === false;
    const result = { sourceId, ts, message: toolResult(id, this.toolNames.get(id) ?? 'unknown', [{ type: 'text', text: body }], failed, ts) };
    // The answer that made the call may still get its usage (a token count after the outputs): its results wait with it.
    if (this.answer) this.outputs.push(result);
    else {
      this.emitHeld();
      this.emit(result);
    }
  }

  /** A response's usage (its input counts the cached part): the answer gets it, and is written with its results. */
  private usage(u: Rec): void {
    if (!this.answer) return; // the response's usage came already (a record and a count for the same response)
    const cached = typeof u.cached_input_tokens === 'number' ? u.cached_input_tokens : 0;
    const input = typeof u.input_tokens === 'number' ? u.input_tokens - cached : 0;
    this.answer.tokens = callTokens(input, u.output_tokens, cached, u.cache_write_input_tokens);
    this.flush();
  }

  private event(p: Rec, sourceId: string, ts: number): void {
    switch (p.type) {
      case 'user_message':
        if (this.fromEvents) this.user({ content: [{ type: 'input_text', text: text(p.message) }] }, sourceId, ts);
        return;
      case 'agent_message':
        if (this.fromEvents) this.answerOf(sourceId, ts).blocks.push({ type: 'text', text: text(p.message) });
        return;
      case 'token_count': {
        const info = isObject(p.info) ? p.info : {};
        if (isObject(info.last_token_usage)) this.usage(info.last_token_usage); // a token count ends a response
        return;
      }
      case 'turn_aborted':
        this.outcome = { outcome: 'cancelled' };
        return;
      case 'error':
        this.outcome = { outcome: 'failed', error: text(p.message) || 'Codex reported an error.' };
        return;
      default:
        return; // UI events (the typed prompt again, a command's begin and end): the history has them
    }
  }

  private answerOf(sourceId: string, ts: number): Answer {
    if (this.answer && this.outputs.length) this.flush(); // an item after the outputs of a response's calls begins the next response
    this.answer ??= { sourceId, ts, blocks: [], tokens: callTokens(0, 0, 0, 0) };
    return this.answer;
  }

  private flush(): void {
    const a = this.answer;
    if (!a) return;
    this.answer = null;
    const outputs = this.outputs.splice(0);
    const stopReason = a.blocks.some((b) => b.type === 'toolCall') ? 'toolUse' : 'stop';
    const message = assistantMessage({
      provider: this.provider,
      api: 'openai-responses',
      model: this.model?.id ?? 'unknown',
      content: a.blocks,
      tokens: a.tokens,
      stopReason,
      ts: a.ts,
    });
    // A command the person ran whose output the model answers is a turn of its own.
    if (this.held.some((h) => h.injected && startsTurn(h.injected.kind))) this.endTurn();
    this.emitHeld();
    this.emit({ sourceId: a.sourceId, ts: a.ts, message });
    for (const result of outputs) this.emit(result);
  }

  private emit(m: ImportedMessage): void {
    if (!this.inTurn) {
      this.target.beginTurn(m.ts, this.model, this.branch);
      this.inTurn = true;
    }
    this.target.message(m);
  }

  private endTurn(): void {
    if (!this.inTurn) return;
    this.target.endTurn(this.outcome?.outcome ?? 'completed', this.outcome?.error);
    this.inTurn = false;
    this.outcome = null;
  }

  finish(): void {
    this.flush();
    this.emitHeld();
    this.endTurn();
  }
}

/**
 * What context a user message is, or null for a prompt the person typed. Codex 0.17x says it of
 * each text (`content_item_kinds`: `user.text` is typed; `environments.environment_context`,
 * `agents_md.instructions`, ... are not); older rollouts are read by their wrappers. Every text
 * of the message must be context for the message to be.
 */
function injectedKind(p: Rec, blocks: readonly PromptBlock[]): string | null {
  const texts = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : []));
  const meta = isObject(p.internal_chat_message_metadata_passthrough) ? p.internal_chat_message_metadata_passthrough.content_item_kinds : undefined;
  if (Array.isArray(meta) && meta.length > 0) {
    const other = meta.find((k) => k !== 'user.text');
    if (other === undefined) return null;
    return (texts[0] !== undefined ? wrapperKind(texts[0]) : null) ?? String(other).split('.').pop()!;
  }
  const kinds = texts.map(wrapperKind);
  return texts.length && kinds.every((k) => k !== null) ? kinds[0]! : null;
}

function contentText(content: unknown): string[] {
  return (Array.isArray(content) ? content.filter(isObject) : []).filter((c) => c.type === 'output_text' || c.type === 'text').map((c) => text(c.text));
}

function parseArguments(raw: unknown): Rec {
  if (isObject(raw)) return raw;
  if (typeof raw !== 'string') return {};
  try {
    const value: unknown = JSON.parse(raw);
    return isObject(value) ? value : { arguments: raw };
  } catch {
    return { arguments: raw };
  }
}

/** A `data:` URL's image; a linked one is named only. */
function imageOf(url: string): PromptBlock {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return match ? imageBlock(match[1], match[2]) : { type: 'text', text: `[image: ${url.slice(0, 200)}]` };
}
