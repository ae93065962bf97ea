import {
  Agent,
  type AfterToolCallContext,
  type AfterToolCallResult,
  type AgentEvent,
  type AgentMessage,
  type AgentTool,
  type BeforeToolCallContext,
  type BeforeToolCallResult,
  type StreamFn,
  type ThinkingLevel,
} from '@mariozechner/pi-agent-core';
import { streamSimple, type Api, type AssistantMessage, type Message, type Model } from '@mariozechner/pi-ai';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { errorMessage } from '../errors';
import { newMessageId, userMessageId } from '../ids';
import { duration, type Logger } from '../logger';
import type { ModelLimits } from '../model/modelSettings';
import { sessionFolders, type QueuedPrompt, type RepoIdentity, type SessionState, type StoredState } from '../format/sessionState';
import type { SessionSummary } from '../format/summary';
import type { SessionStore } from '../store/sessionStore';
import type { SessionWriter } from '../store/sessionWriter';
import { ApprovalGate, type ApprovalPolicy, type ApprovalUi } from '../tools/approvals';
import { Checkpoints } from '../tools/checkpoints';
import { BlobStore } from '../format/blobStore';
import type { ToolContext } from '../tools/context';
import { readOnlyTools, sortedByName, workspaceTools } from '../tools';
import { seenFiles } from '../tools/seenFiles';
import { taskTool } from '../tools/taskTool';
import { todoTool } from '../tools/todoTool';
import { todoListOf } from '../format/logFold';
import { staleTodoReminder, type TodoList } from '../format/todoList';
import type { McpHub } from '../setup/mcp/hub';
import { McpTurnTools, toolsDiffer } from './mcpTurnTools';
import { WorkspaceFs } from '../tools/workspaceFs';
import {
  REDO_CALL,
  type CacheBreakRecord,
  type ContextRecord,
  type InjectedContext,
  type MemoryFact,
  type MemoryRecord,
  type ModelSnapshot,
  type TurnOutcome,
} from '../wire/records';
import { CacheWatch, toolShape } from './cacheWatch';
import { notCalled, RepeatedCalls, type RepeatLimits } from './repeatedCalls';
import { readLastCall } from '../wire/lastCall';
import type { PromptInfo, PromptState, SessionEvent } from './events';
import { contextMessages, DEFAULT_COMPACTION, type CompactionSettings } from './compaction';
import { contextUse, fixedTokens, type ContextUse } from './contextUse';
import { Compactor } from './compactor';
import { SessionMemory } from './sessionMemory';
import { workspaceGit, type WorkspaceGit } from './gitContext';
import { workspaceKey } from '../workspace/workspaceKey';
import { placedRoot } from '../store/sessionFiles';
import { identityOf } from '../git/worktree';
import { buildUserMessage, instructionReminders, untold } from './preflight';
import { MAX_STOP_CONTINUATIONS, SetupGuards } from './setupGuards';
import type { SetupSources } from '../setup/sources';
import type { PermissionRules } from '../setup/permissions/permissionRules';
import { reminderBlock } from '../format/reminder';
import { SessionSkills, type UserSetupDirs } from '../setup/skills/sessionSkills';
import { attachContext, type Attachment } from './attachments';
import { withImageBlobs, withImageData } from './imageBlobs';
import { rewindSession, RewindError, undoRewind, type RewindResult, type UndoResult } from '../store/rewind';
import { askSideQuestion, sideCall } from './sideQuestion';
import { SUGGESTION_MAX_TOKENS, suggestionContext, suggestionText } from './suggestion';
import { callUsage } from './callUsage';
import { SecretRedactor } from './secrets';
import { SessionLog } from './sessionLog';
import { describeModelError } from './modelErrors';
import { runSubagent } from './subagent';
import { closeOpenToolCalls } from '../wire/toolCalls';
import { LeaseLostError } from '../store/writerLease';
import { LogWriteFailedError } from '../store/writeFailure';
import { readContextTail } from '../wire/contextTail';
import { isFolder, realPath } from '../fs/probe';
import { DEFAULT_MODE, isTurnMode, type TurnMode } from '../wire/turnMode';
import { modeReminder } from './modes';
import {
  ChangeLedger,
  ChangesView,
  keepRecords,
  LineCounts,
  pendingDeltas,
  undoDeltas,
  type ChangeScope,
  type ChangesInfo,
  type FileDelta,
  type UndoneChanges,
} from '../store/changes';

/** How a goal run's prompt goes to the model (goal.ts). */
export interface GoalPrompt {
  /** An automatic continuation, not typed by the user: turn_begin says `auto: 'goal'`, its message is Braid's context. */
  readonly auto: boolean;
  /** Told to the model with the prompt, once: what the goal is and how to say it is met. */
  readonly reminder: string;
}

/** How the message of an automatic prompt is marked in the log: context Braid added, shown as an automatic turn. */
const AUTOMATIC_PROMPT: InjectedContext = { by: 'braid', kind: 'goal' };

/** Everything a Session needs from its host (the extension or the CLI). */
export interface SessionOptions {
  readonly store: SessionStore;
  readonly workspaceDirs: readonly string[];
  /** The model for the next turn; read at each turn's start (a switch mid-turn applies next turn). */
  readonly model: () => ModelChoice | Promise<ModelChoice>;
  readonly apiKey: (provider: string) => Promise<string | undefined> | string | undefined;
  /** A stream function other than pi-ai's (the vscode.lm adapter). */
  readonly streamFn?: StreamFn;
  readonly systemPrompt: string;
  readonly approvals: ApprovalUi;
  readonly approvalPolicy?: ApprovalPolicy;
  /** Whether the workspace is trusted; a function is asked at each tool call and turn (trust granted later applies at once). */
  readonly trusted: boolean | (() => boolean);
  readonly logger: Logger;
  /** The UserPromptSubmit hook command, if the user configured one. */
  readonly promptHook?: string;
  /** Writes an "Always allow" rule into the user's settings (VS Code's `braid.permissions.allow`); Braid's user settings file when absent. */
  readonly alwaysAllow?: (rule: string) => Promise<void>;
  /** Read git context into each turn of a trusted workspace, and record its branch in turn_begin (off in tests that need no git). */
  readonly gitContext?: boolean;
  /** When and how much to compact; DEFAULT_COMPACTION when absent. */
  readonly compaction?: CompactionSettings;
  /** How long the provider keeps a prompt cache unused (a longer pause is a cache break's likely cause); 5 minutes when absent. */
  readonly cacheLifetimeMs?: number;
  /**
   * The workspace's setup (hooks and permission rules; docs/setup.md), or how to have it as it is
   * now: a host that reads it again when it changes gives a function, and the session follows.
   */
  readonly setup?: SetupSources | (() => SetupSources | undefined);
  /**
   * Tools from outside Braid (VS Code's own, a server's), asked for at each turn's start: a change
   * applies from the next turn. Each must ask the context's approval gate before it acts.
   */
  readonly extraTools?: (ctx: ToolContext) => readonly AgentTool[];
  /** Skills (listed in the system prompt, the `skill` tool) and `.github/instructions`, from these user folders and the workspace's; none when absent. */
  readonly skills?: UserSetupDirs;
  /** The window's MCP servers, or how to find them at a turn's start: their tools join each turn's (started when a turn first needs them; the host closes the hub). */
  readonly mcp?: McpHub | (() => McpHub);
  /** When the same tool call, made again in one turn, gets a reminder and when it ends the turn (3 and 5 when absent). */
  readonly repeatLimits?: Partial<RepeatLimits>;
  /**
   * Hold each prompt until its answer arrives (read at each turn's start): a turn that fails
   * before any answer writes nothing, and its prompt ends `failed` with `unsent` (docs/reference.md, Turns and prompts).
   */
  readonly holdPromptUntilAnswer?: boolean | (() => boolean);
}

/** A model and its thinking level. */
export interface ModelChoice {
  readonly model: Model<Api>;
  readonly thinking: string;
  /** The model's limits and where they came from, when the host resolved them (the model line shows them). */
  readonly limits?: ModelLimits;
}

export interface SubmitOptions {
  /** While a turn runs, inject the prompt into it instead of queueing it. */
  readonly steerIfActive?: boolean;
  /** The client's key for this prompt; a resend with the same key is a no-op. */
  readonly messageKey?: string;
  /** What its turn may do (Agent when absent). A steered prompt joins the running turn, in that turn's mode. */
  readonly mode?: TurnMode;
  /** What the user attached (read by the host); sent before the text, bounded. A prompt with attachments is queued, never steered. */
  readonly attachments?: readonly Attachment[];
  /** A prompt of a goal run (goal.ts): never steered; an automatic one is marked so in the log. */
  readonly goal?: GoalPrompt;
}

interface ActiveTurn {
  readonly turn: number;
  readonly prompt: Prompt;
  /** The model and thinking snapshotted at the turn's start: the subagents of the turn use them too. */
  readonly choice: ModelChoice;
  assistantStartedAt: number;
  /** Why Braid ended the turn itself (a call repeated too often). */
  endedBecause?: string;
  /** While the turn is held: how many messages the kernel had before it, and the events its held records would have sent. */
  held?: { messagesBefore: number; events: SessionEvent[] };
  /** The work tree as the turn began (in a trusted workspace in a repository), and when: commits made since are recorded. */
  readonly git?: { readonly tree: WorkspaceGit; readonly since: number };
}

interface Prompt {
  promptId: string;
  text: string;
  messageKey: string;
  mode: TurnMode;
  attachments?: readonly Attachment[];
  goal?: GoalPrompt;
  state: PromptState;
  reason?: string;
  /** It failed before its answer and nothing of it was written (a held prompt): the user gets it back to edit. */
  unsent?: boolean;
  /** Stop was asked for; a stop before the kernel runs is applied when the run starts. */
  stop?: boolean;
}

/**
 * The seam between the kernel and the product (docs/reference.md, Turns and prompts). One Session per open session:
 * it owns the kernel's Agent, subscribes to its events and does every side effect there: the
 * wire log, usage records, naming, the prompt queue, and the events the UI shows.
 */
export class Session {
  private readonly agent: Agent;
  private readonly events = new EventEmitter();
  private readonly userIds = new WeakMap<object, string>();
  /** The messages of automatic prompts (a goal's continuations): logged as Braid's context, not the user's prompt. */
  private readonly automatic = new WeakSet<object>();
  private readonly queue: Prompt[] = [];
  private readonly checkpoints: Checkpoints;
  /** The session's content-addressed files: checkpoints' file images and the images of prompts. */
  private readonly blobs: BlobStore;
  private readonly toolContext: ToolContext;
  /** The files changed and not yet kept or undone, read from the log as it grows. */
  private readonly ledger: ChangeLedger;
  private readonly changesView: ChangesView;
  private active: ActiveTurn | undefined;
  /** The system prompt and tool definitions' tokens, estimated once (the context meter). */
  private fixedTokens: number | undefined;
  /** Messages from before the latest compaction: their providers' counts included what it summarized. */
  private readonly countedBeforeCompaction = new WeakSet<object>();
  /** The prompt the pump took from the queue, from its hook to its turn's end. */
  private current: Prompt | undefined;
  /** The running turn's context record, until its prompt's message is written. */
  private turnContext: ContextRecord | undefined;
  private paused: { reason: string } | null;
  private closed = false;
  private idle: Promise<void> = Promise.resolve();
  /** The wire record id of each message the kernel holds (a compaction names the first it keeps). */
  private readonly recordIds = new WeakMap<object, string>();
  /** The one place that knows the keys handed out; records, events, the logger and thrown errors pass through it. */
  private readonly secrets = new SecretRedactor();
  private readonly logger: Logger;
  /** The key lookup, remembering the keys it hands out so they can be taken out of error texts. */
  private readonly apiKey: (provider: string) => Promise<string | undefined>;
  private readonly compactor: Compactor;
  /** The session memory (docs/reference.md, Session memory). */
  private readonly memory: SessionMemory;
  /** The Output channel's (or `--verbose`'s) account of what happened, without content. */
  private readonly log: SessionLog;
  /** Compares each model call of the main agent with the one before it: why the prompt cache broke. */
  private readonly cacheWatch: CacheWatch;
  private readonly repeats: RepeatedCalls;
  /** Reminders for calls repeated in this turn, by tool call id, added to their results. */
  private readonly repeatReminders = new Map<string, string>();
  /** The blobs of the system prompt and the tools' shape, once stored (again when the tools or the system prompt change). */
  private prompt: { system: string; tools: string; text: string } | undefined;
  /** The user's hooks and permission rules at work. */
  private readonly guards: SetupGuards;
  /** Context SessionStart hooks gave, for the next turn's message. */
  private readonly startContext: string[] = [];
  /** Braid's own tools; the host's extra tools join them at each turn's start. */
  private readonly ownTools: readonly AgentTool[];
  /** The session's skills and scoped instructions, when its host reads them. */
  private readonly skills: SessionSkills | undefined;
  /** The window's MCP servers, as a turn asks for their tools. */
  private readonly mcpTools: McpTurnTools | undefined;
  /** The running MCP servers' tools, as the latest turn found them. */
  private mcpNow: readonly AgentTool[] = [];

  private constructor(
    private readonly options: SessionOptions,
    private readonly writer: SessionWriter,
    state: SessionState,
    history: Message[],
    /** Ids of the user messages in the log: a resend with a known message key is a no-op. */
    private readonly userMessageIds: Set<string>,
    recordIds: ReadonlyMap<object, string>,
    memory: MemoryRecord | undefined,
  ) {
    for (const [message, id] of recordIds) this.recordIds.set(message, id);
    this.apiKey = this.secrets.wrap(options.apiKey);
    this.logger = this.secrets.logger(options.logger);
    this.memory = new SessionMemory({ writer, logger: this.logger, sessionId: state.id, model: () => this.sideModel(), emit: (e) => this.emit(e) }, memory);
    this.log = new SessionLog(this.logger, state.id, options.workspaceDirs[0]!);
    this.paused = state.paused;
    for (const q of state.queue)
      this.queue.push({
        promptId: q.promptId,
        text: q.text,
        messageKey: q.messageKey ?? q.promptId,
        mode: isTurnMode(q.mode) ? q.mode : DEFAULT_MODE,
        ...(q.attachments ? { attachments: q.attachments } : {}),
        state: 'pending',
      });
    const blobs = (this.blobs = new BlobStore(options.store.layout.blobsDir(writer.dir)));
    this.ledger = new ChangeLedger(options.store.layout.agentLog(writer.dir), (root) => placedRoot(state, root));
    this.changesView = new ChangesView(this.ledger, new LineCounts(blobs));
    this.checkpoints = new Checkpoints(blobs, async (record) => void (await writer.append(record)));
    this.toolContext = {
      workspace: new WorkspaceFs(options.workspaceDirs, options.store.layout.protectedFrom(options.workspaceDirs)),
      get trusted() {
        return typeof options.trusted === 'function' ? options.trusted() : options.trusted;
      },
      approvals: new ApprovalGate(options.approvals, options.approvalPolicy),
      checkpoints: this.checkpoints,
      logger: this.logger,
      seenFiles: () => seenFiles(this.agent.state.messages),
    };
    this.cacheWatch = new CacheWatch(options.cacheLifetimeMs);
    this.repeats = new RepeatedCalls(options.repeatLimits);
    this.guards = new SetupGuards({
      ...(options.setup ? { setup: typeof options.setup === 'function' ? options.setup : () => options.setup as SetupSources } : {}),
      ...(options.promptHook ? { promptHook: options.promptHook } : {}),
      ...(options.alwaysAllow ? { alwaysAllow: options.alwaysAllow } : {}),
      gate: this.toolContext.approvals,
      logger: this.logger,
      info: () => ({ sessionId: this.id, transcriptPath: options.store.layout.agentLog(writer.dir), workspaceDir: options.workspaceDirs[0]! }),
    });
    const stream = options.streamFn ?? streamSimple;
    const task = taskTool((d, p, signal) => this.runSubagent(d, p, signal));
    // Every turn, whatever its mode, is offered the same tools in the same order: a tool list that
    // changed would change the start of every prompt, and the provider's prompt cache with it.
    // Ask and Plan are enforced by the approval gate, which refuses a change in those modes.
    const skills = options.skills
      ? new SessionSkills(
          options.workspaceDirs[0]!,
          () => this.toolContext.trusted,
          options.skills,
          () => this.agent.state.messages as Message[],
        )
      : undefined;
    this.skills = skills;
    const own = [...workspaceTools(this.toolContext), task, todoTool()];
    this.ownTools = skills ? skills.tools(own) : own;
    const tools = sortedByName([...this.ownTools, ...(options.extraTools?.(this.toolContext) ?? [])]);
    this.mcpTools = options.mcp ? new McpTurnTools(options.mcp, this.toolContext.approvals) : undefined;
    // The model is chosen at each turn's start; the kernel gets it then.
    this.agent = new Agent({
      initialState: { systemPrompt: this.systemPromptNow(), thinkingLevel: 'off', tools, messages: history },
      getApiKey: (provider) => this.apiKey(provider),
      streamFn: (model, context, streamOptions) => {
        // A turn Braid ended (a call repeated too often) calls the model no more.
        if (this.active?.endedBecause) return notCalled(model, this.active.endedBecause);
        this.cacheWatch.sending(model, context, this.agent.state.thinkingLevel);
        return stream(model, context, streamOptions);
      },
      // The provider's cache key where it takes one (pi-ai passes it on: OpenAI's prompt_cache_key, session affinity headers).
      sessionId: state.id,
      beforeToolCall: (ctx, signal) => this.beforeToolCall(ctx, signal),
      afterToolCall: (ctx, signal) => this.afterToolCall(ctx, signal),
    });
    this.agent.subscribe((event) => this.onKernelEvent(event));
    this.compactor = new Compactor({
      agent: this.agent,
      writer,
      settings: options.compaction,
      systemPrompt: options.systemPrompt,
      logger: this.logger,
      sessionId: state.id,
      memory: this.memory,
      model: () => this.sideModel(),
      recordId: (m) => this.recordIds.get(m),
      beforeCompact: async (reason, focus) =>
        void (await this.guards.fire(
          'PreCompact',
          { trigger: reason === 'manual' ? 'manual' : 'auto', custom_instructions: focus ?? '' },
          { matchValue: reason === 'manual' ? 'manual' : 'auto' },
        )),
      emit: (event) => {
        this.releaseHeld(); // a compaction in a held turn wrote its records
        if (event.type === 'compaction' && event.phase === 'end') {
          this.countsBeforeCompaction();
          this.cacheWatch.compacted();
        }
        this.emit(event);
      },
    });
  }

  /**
   * Opens a session (a new one without `sessionId`) for prompting. Throws SessionBusyError when
   * another process writes it; a lease whose holder is gone (or silent past its expiry) is taken over.
   */
  static async open(options: SessionOptions, sessionId?: string): Promise<Session> {
    const store = options.store;
    const state = sessionId ? store.get(sessionId) : await createHere(options);
    const folders = foldersHere(state, options.workspaceDirs);
    const writer = await store.openWriter(state.id).catch((err: unknown) => {
      if (!sessionId) store.discard(state.id); // made just now and holding nothing: not left behind
      throw err;
    });
    if (state.archived) await store.restore(state.id); // opening an archived session restores it
    // Crash recovery: a turn left open ends `interrupted` (its trailing tool calls get results
    // below); a status left `running` is set right.
    await writer.recover();
    // The writer read the log when it opened (all of it, or back to the latest compaction), so it
    // is read once; ending a turn adds no message.
    const replayed = writer.takeInitialHistory() ?? readContextTail(store.layout.agentLog(store.locate(state.id)));
    const records = replayed.messages;
    // The model's context starts from the latest compaction; the log keeps everything.
    // Images are named by blob in the log; the kernel gets their data.
    const blobs = new BlobStore(store.layout.blobsDir(writer.dir));
    const history = contextMessages(replayed).map((m) => withImageData(m, blobs));
    const userIds = new Set(records.filter((r) => r.message.role === 'user').map((r) => r.id));
    // Tool calls a crash left without results get them, in the log too, so the history is valid.
    const closing = closeOpenToolCalls(history, 'This tool call did not finish before Braid stopped; its result is unknown.');
    for (const m of closing) await writer.appendToLastTurn(m);
    history.push(...closing);
    let current = writer.summary.state;
    // Queued prompts that survived a close come back paused, never run on their own.
    if (current.queue.length > 0 && !current.paused) current = await writer.updateState((s) => ({ ...s, paused: { reason: 'window-closed' } }));
    // The folders the tools act in are remembered: a rewind restores files only inside them.
    const known = sessionFolders(current);
    if (folders.some((f) => !known.includes(f)))
      current = await writer.updateState((s) => ({ ...s, workspaceFolders: [...new Set([...sessionFolders(s), ...folders])] }));
    const session = new Session(
      { ...options, workspaceDirs: folders },
      writer,
      current,
      history,
      userIds,
      new Map(records.map((r) => [r.message as object, r.id])),
      replayed.memory,
    );
    if (replayed.compactions.length > 0) session.countsBeforeCompaction();
    if (sessionId) session.seedCacheWatch();
    session.log.opened(!sessionId, current.turnCount, current.queue.length);
    const source = sessionId ? 'resume' : 'startup';
    const started = await session.guards.fire('SessionStart', { source }, { matchValue: source });
    session.startContext.push(...started.context);
    return session;
  }

  get id(): string {
    return this.writer.id;
  }

  /** The session as it is now: what state.json keeps and what its log says (memory, no disk). */
  get state(): SessionState {
    return this.writer.summary.state;
  }

  /** What the session's index row is made from (its state, first prompt, usage by origin), as its writer keeps it: memory, no disk. */
  get summary(): Readonly<SessionSummary> {
    return this.writer.summary;
  }

  /** The title as of the last turn's end (auto-named from the first prompt unless the user named it). */
  get title(): string {
    return this.state.title;
  }

  /** True once another process has taken this session's writer lease over: it writes nothing more. */
  get takenOver(): boolean {
    return this.writer.takenOver;
  }

  get isRunning(): boolean {
    return this.active !== undefined;
  }

  /** True once close() was called: no event but `idle` is told after. */
  get isClosed(): boolean {
    return this.closed;
  }

  get isPaused(): boolean {
    return this.paused !== null;
  }

  /** Why the queue waits for the user: `window-closed`, `stopped` (the user pressed Stop) or `failed` (a turn failed); undefined when it runs. */
  get pauseReason(): string | undefined {
    return this.paused?.reason;
  }

  /** Prompts waiting, in order. */
  get queued(): PromptInfo[] {
    return this.queue.map((p) => this.info(p));
  }

  /** The model's todo list as the log's effective turns left it (null: none). */
  todos(): TodoList | null {
    return todoListOf(this.writer.summary.fold);
  }

  /** How full the model's context would be at the next request, and of what (the context meter). */
  contextUse(): ContextUse {
    this.fixedTokens ??= fixedTokens(this.agent.state.systemPrompt, this.agent.state.tools);
    const threshold = (this.options.compaction ?? DEFAULT_COMPACTION).threshold;
    return contextUse(this.agent.state.messages as Message[], this.fixedTokens, threshold, (m) => !this.countedBeforeCompaction.has(m));
  }

  /**
   * The answers in the context now were counted by the provider with the messages a compaction
   * replaced by its summary: their counts no longer say the context's size.
   */
  private countsBeforeCompaction(): void {
    for (const m of this.agent.state.messages) this.countedBeforeCompaction.add(m);
  }

  /** The session's permission rules: the user's, the project's, and those made for this session ("Allow for this session"). */
  get permissionRules(): PermissionRules {
    return this.guards.rules;
  }

  /** The effective conversation so far (the kernel's messages). */
  get messages(): AgentMessage[] {
    return this.agent.state.messages;
  }

  onEvent(listener: (event: SessionEvent) => void): () => void {
    this.events.on('event', listener);
    return () => this.events.off('event', listener);
  }

  /** Resolves when no turn runs and nothing runnable is queued. */
  waitForIdle(): Promise<void> {
    return this.idle;
  }

  /**
   * Submits a prompt: runs now when idle; while busy, queues it (`pending`) or, with
   * `steerIfActive`, injects it into the running turn (`steered`). A prompt whose message key was
   * seen before is a no-op and returns the earlier prompt's state.
   */
  async submit(text: string, options: SubmitOptions = {}): Promise<PromptInfo> {
    if (this.closed) throw new Error('This session is closed.');
    const messageKey = options.messageKey ?? newMessageId();
    const messageId = userMessageId(this.id, messageKey);
    const known = this.queue.find((p) => p.messageKey === messageKey) ?? (this.active?.prompt.messageKey === messageKey ? this.active.prompt : undefined);
    if (known) return this.info(known);
    if (this.userMessageIds.has(messageId)) {
      return { promptId: messageId, text, messageKey, state: 'completed' };
    }
    // An image's bytes go to the blobs now: the queue and the log name them by hash.
    const attachments = options.attachments?.length ? options.attachments.map((a) => this.storedAttachment(a)) : undefined;
    const mode = options.mode ?? DEFAULT_MODE;
    const prompt: Prompt = {
      promptId: `prm_${messageId.slice(-16)}`,
      text,
      messageKey,
      mode,
      ...(attachments ? { attachments } : {}),
      ...(options.goal ? { goal: options.goal } : {}),
      state: 'pending',
    };
    if (this.active && options.steerIfActive && !attachments && !options.goal) {
      const message = buildUserMessage(text, [], []);
      this.userIds.set(message, messageId);
      this.agent.steer(message);
      prompt.state = 'steered';
      this.emit({ type: 'prompt', prompt: this.info(prompt) });
      return this.info(prompt);
    }
    // A prompt runs at once unless a prompt is running or in its preflight (`current`, set as the
    // loop takes it) or the queue is paused; only one that waits is written to state.json.
    const waits = this.current !== undefined || this.active !== undefined || this.paused !== null;
    this.queue.push(prompt);
    if (waits) await this.saveQueue();
    this.emit({ type: 'prompt', prompt: this.info(prompt) });
    if (!waits) this.pump();
    return this.info(prompt);
  }

  /**
   * A side question (/btw): an ephemeral call over the current history that never enters it; only
   * its usage is recorded (the money was spent). Works while a turn runs (it sees the history up
   * to the last finished message).
   */
  async ask(question: string, signal?: AbortSignal): Promise<{ text: string; message: AssistantMessage }> {
    return this.secrets.guard(() => this.askUnguarded(question, signal));
  }

  private async askUnguarded(question: string, signal?: AbortSignal): Promise<{ text: string; message: AssistantMessage }> {
    const { model } = await this.options.model();
    const history = (this.agent.state.messages as Message[]).filter((m) => m !== this.agent.state.streamingMessage);
    const startedAt = Date.now();
    const answer = await askSideQuestion({
      model,
      systemPrompt: this.agent.state.systemPrompt,
      history,
      tools: this.agent.state.tools,
      question,
      sessionId: this.id,
      apiKey: await this.apiKey(model.provider),
      ...(this.options.streamFn ? { streamFn: this.options.streamFn } : {}),
      ...(signal ? { signal } : {}),
    });
    this.logger.info(
      `session ${this.id}: side question to ${model.provider}/${model.id} ${answer.message.stopReason === 'error' ? 'failed' : 'answered'} after ${duration(Date.now() - startedAt)}`,
    );
    // The answer is still worth showing even when its usage could not be counted.
    await this.recordSideUsage(answer.message, startedAt, 'side-question');
    return answer;
  }

  /**
   * A next-prompt suggestion after a turn (the Chat view's ghost text): one side call over the
   * history exactly as the turns send it (same system prompt, tools and messages, so the
   * provider's cached prefix is reused) with SUGGESTION_REQUEST last, thinking off, no tool run.
   * Nothing enters the history; only its usage is recorded (`purpose: suggestion`). Undefined
   * while a turn runs, or when the model has none (NONE, or an answer that is not one short line).
   */
  async suggest(signal?: AbortSignal): Promise<string | undefined> {
    return this.secrets.guard(() => this.suggestUnguarded(signal));
  }

  private async suggestUnguarded(signal?: AbortSignal): Promise<string | undefined> {
    if (this.active || this.current || this.closed) return undefined;
    const { model } = await this.options.model();
    const startedAt = Date.now();
    const answer = await sideCall({
      model,
      systemPrompt: this.agent.state.systemPrompt,
      messages: suggestionContext(this.agent.state.messages as Message[]),
      tools: this.agent.state.tools,
      sessionId: this.id,
      apiKey: await this.apiKey(model.provider),
      maxTokens: SUGGESTION_MAX_TOKENS,
      failure: 'The suggestion failed.',
      ...(this.options.streamFn ? { streamFn: this.options.streamFn } : {}),
      ...(signal ? { signal } : {}),
    });
    this.logger.info(
      `session ${this.id}: suggestion from ${model.provider}/${model.id} ${answer.message.stopReason} after ${duration(Date.now() - startedAt)}`,
    );
    await this.recordSideUsage(answer.message, startedAt, 'suggestion');
    return answer.message.stopReason === 'aborted' ? undefined : suggestionText(answer.text);
  }

  /** Appends the usage of a side call (it was spent) and tells the views; a failure to record is logged, never thrown. */
  private async recordSideUsage(message: AssistantMessage, startedAt: number, purpose: string): Promise<void> {
    try {
      await this.writer.appendCallUsage(callUsage(message, newMessageId(), startedAt, purpose));
      this.releaseHeld();
      // The session's usage changed: its views (the usage line, the status bar) read it again.
      this.emit({ type: 'status', status: this.active ? 'running' : this.state.status, paused: this.paused !== null });
    } catch (err) {
      this.logger.warn(`session ${this.id}: the usage of a ${purpose.replace('-', ' ')} could not be recorded (${errorMessage(err)})`);
    }
  }

  /**
   * Rewinds to before the prompt `messageId` (with files, restoring what the dropped turns
   * changed) and reloads the conversation. Returns what happened, with the prompt's text for
   * edit & resend.
   */
  async rewind(messageId: string, options: { files: boolean; confirmOutside?: boolean }): Promise<RewindResult> {
    if (this.active) throw new RewindError('a turn is running; stop it before rewinding');
    const result = await rewindSession(this.options.store, this.id, messageId, { ...options, fence: this.writer.fence });
    await this.reload();
    return result;
  }

  /** The Changes lists: the files the last turn and the session changed, not yet kept or undone. */
  changes(): ChangesInfo {
    return this.changesView.info();
  }

  /** Keep: the files (by key; every listed one with 'all') are accepted as they are; a file_review records it. Returns how many. */
  async keepChanges(keys: readonly string[] | 'all', scope: ChangeScope): Promise<number> {
    const deltas = this.listed(keys, scope);
    if (deltas.length > 0) await this.writer.append(keepRecords(deltas, this.writer.currentTurn), true);
    return deltas.length;
  }

  /**
   * Undo: the files (by key; every listed one with 'all') get their image from the start of the
   * scope back, each recorded as a file_change. Refused while a turn runs (its tools may be
   * writing the same files).
   */
  async undoChanges(keys: readonly string[] | 'all', scope: ChangeScope): Promise<UndoneChanges> {
    if (this.active) throw new RewindError('a turn is running; stop it before undoing its changes');
    const result = await undoDeltas(this.options.store, this.id, this.listed(keys, scope), this.writer.currentTurn, this.writer.fence);
    if (result.undone.length > 0) await this.writer.reload(); // the journal appended to the log
    return result;
  }

  /**
   * Undoes an Undo of the Changes list (its notification's Undo): each file it undid gets the
   * image it had before back, unless changed since (left alone and named); the files are listed again.
   */
  async redoChanges(reverse: readonly FileDelta[]): Promise<UndoneChanges> {
    if (this.active) throw new RewindError('a turn is running; stop it before undoing an undo');
    const result = await undoDeltas(this.options.store, this.id, reverse, this.writer.currentTurn, this.writer.fence, REDO_CALL);
    if (result.undone.length > 0) await this.writer.reload();
    return result;
  }

  /** A listed file with the images it is compared by (its diff's two sides). */
  changedFile(key: string, scope: ChangeScope): FileDelta | undefined {
    return this.listed([key], scope)[0];
  }

  private listed(keys: readonly string[] | 'all', scope: ChangeScope): FileDelta[] {
    const { records, turn } = this.ledger.read();
    return pendingDeltas(records, scope, turn).filter((d) => keys === 'all' || keys.includes(d.key));
  }

  /** Undoes the last rewind (when nothing happened since) and reloads the conversation. */
  async undoRewind(): Promise<UndoResult> {
    if (this.active) throw new RewindError('a turn is running; stop it first');
    const result = await undoRewind(this.options.store, this.id, { fence: this.writer.fence });
    await this.reload();
    return result;
  }

  private async reload(): Promise<void> {
    this.cacheWatch.rewound(); // the conversation the next call sends begins anew from the log
    const history = this.options.store.history(this.id);
    this.agent.state.messages = contextMessages(history).map((m) => withImageData(m, this.blobs));
    this.memory.reloaded(history.memory);
    for (const r of history.messages) {
      this.recordIds.set(r.message, r.id);
      if (r.message.role === 'user') this.userMessageIds.add(r.id);
    }
    await this.writer.reload();
    this.emit({ type: 'status', status: this.state.status, paused: this.paused !== null });
  }

  /** Cancels a prompt: a queued one is removed; the running one is aborted and its turn ends `cancelled`. */
  async cancel(promptId?: string): Promise<void> {
    if (this.current && (!promptId || this.current.promptId === promptId)) {
      this.current.stop = true;
      this.agent.abort();
      this.compactor.abort();
      return;
    }
    if (!promptId && this.compactor.busy) {
      this.compactor.abort();
      return;
    }
    const index = this.queue.findIndex((p) => p.promptId === promptId);
    if (index < 0) return;
    const [prompt] = this.queue.splice(index, 1);
    prompt!.state = 'cancelled';
    if (this.queue.length === 0) this.paused = null; // nothing is left to wait
    await this.saveQueue();
    this.emit({ type: 'prompt', prompt: this.info(prompt!) });
  }

  /** Runs a queued prompt now by injecting it into the running turn. */
  async steer(promptId: string): Promise<void> {
    const index = this.queue.findIndex((p) => p.promptId === promptId);
    if (index < 0 || !this.active) return;
    const [prompt] = this.queue.splice(index, 1);
    const message = buildUserMessage(prompt!.text, [], []);
    this.userIds.set(message, userMessageId(this.id, prompt!.messageKey));
    this.agent.steer(message);
    prompt!.state = 'steered';
    await this.saveQueue();
    this.emit({ type: 'prompt', prompt: this.info(prompt!) });
  }

  /** Drops every queued prompt (a paused queue's Discard); each is told `cancelled`, and the queue runs again from empty. */
  async discardQueue(): Promise<void> {
    const dropped = this.queue.splice(0);
    this.paused = null;
    await this.saveQueue();
    for (const p of dropped) {
      p.state = 'cancelled';
      this.emit({ type: 'prompt', prompt: this.info(p) });
    }
  }

  /** Unpauses the queue (after a crash, a close, a Stop or a failed turn) and starts the next prompt. */
  async resume(): Promise<void> {
    this.paused = null;
    await this.saveQueue();
    if (!this.current && !this.active) this.pump();
  }

  /**
   * Compacts now (/compact, "Braid: Compact Session"): the older part of the conversation becomes
   * a summary, optionally focused. Returns false when there is nothing old enough to summarize.
   * Throws when a turn runs, the summary call fails, or the user stops it.
   */
  async compact(focus?: string): Promise<boolean> {
    if (this.active || this.compactor.busy) throw new Error('A turn is running; compact when it has ended.');
    return this.secrets.guard(() => this.compactor.run('manual', focus, true));
  }

  /** The session memory now (undefined: none yet). */
  get memoryRecord(): MemoryRecord | undefined {
    return this.memory.current;
  }

  /**
   * Asks the model for the session memory now (/remember, "Braid: Update Session Memory") over
   * the conversation as the model has it. Throws when a turn runs or the call fails (the memory
   * then stays as it was). The next prompt tells the model of the new memory.
   */
  async updateMemory(signal?: AbortSignal): Promise<MemoryRecord> {
    if (this.active || this.compactor.busy) throw new Error('A turn is running; update the memory when it has ended.');
    return this.secrets.guard(() => this.memory.update(this.agent.state.messages as Message[], signal));
  }

  /** The user's edit of the session memory: the whole list, written `by: user`; the next prompt tells the model. */
  async setMemory(facts: readonly MemoryFact[]): Promise<MemoryRecord> {
    return this.memory.set(facts);
  }

  /** The model, its API key and the stream of a call beside the turns (a compaction, the memory). */
  private async sideModel(): Promise<{ model: Model<Api>; apiKey: string | undefined; streamFn?: StreamFn }> {
    const { model } = await this.options.model();
    return { model, apiKey: await this.apiKey(model.provider), ...(this.options.streamFn ? { streamFn: this.options.streamFn } : {}) };
  }

  /** Stops the running turn and closes the log; queued prompts stay in state.json, paused. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.current) this.current.stop = true; // a prompt still in its hook does not begin a turn
    this.agent.abort();
    this.compactor.abort();
    await this.idle.catch(() => undefined);
    await this.guards.fire('SessionEnd', { reason: 'other' }).catch(() => undefined);
    try {
      if (this.queue.length > 0) await this.saveState((s) => ({ ...s, paused: { reason: 'window-closed' } }));
    } finally {
      await this.writer.close(); // the log is closed and the lease given back even when the folder is gone
    }
    this.log.closed();
    this.events.removeAllListeners();
  }

  /** An attachment whose image is stored in the session's blobs (named by hash, its data dropped). */
  private storedAttachment(a: Attachment): Attachment {
    if (a.image?.data === undefined) return a;
    const blob = this.blobs.put(Buffer.from(a.image.data, 'base64'));
    return { ...a, image: { mimeType: a.image.mimeType, blob } };
  }

  private info(p: Prompt): PromptInfo {
    return {
      promptId: p.promptId,
      text: p.text,
      messageKey: p.messageKey,
      state: p.state,
      ...(p.reason ? { reason: p.reason } : {}),
      ...(p.unsent ? { unsent: true } : {}),
    };
  }

  private emit(event: SessionEvent): void {
    if (!this.closed || event.type === 'idle') this.events.emit('event', this.secrets.redactObject(event));
  }

  /** Writes the queue and its pause to state.json, unless they are what it already holds. */
  private async saveQueue(): Promise<void> {
    const saved = this.state;
    // A goal's automatic prompt is not kept: its run ends with the process that runs it.
    const kept = this.queue.filter((p) => !p.goal?.auto);
    const same =
      saved.queue.length === kept.length &&
      saved.queue.every((q, i) => q.promptId === kept[i]!.promptId) &&
      JSON.stringify(saved.paused) === JSON.stringify(this.paused);
    if (same) return;
    const queue: QueuedPrompt[] = kept.map((p) => ({
      promptId: p.promptId,
      text: p.text,
      messageKey: p.messageKey,
      ...(p.attachments ? { attachments: p.attachments } : {}),
      queuedAt: Date.now(),
      ...(p.mode !== DEFAULT_MODE ? { mode: p.mode } : {}),
    }));
    await this.saveState((s) => ({ ...s, queue, paused: this.paused }));
  }

  /**
   * Writes state.json as the session's writer. Once another process has taken the lease over,
   * nothing is saved: the queue lives on here only, and the next turn fails saying why.
   */
  private async saveState(change: (s: StoredState) => StoredState): Promise<void> {
    try {
      await this.writer.updateState(change);
    } catch (err) {
      if (!(err instanceof LeaseLostError)) throw err;
    }
  }

  /**
   * After a prompt the user stopped or that failed, the prompts queued behind it wait for the user
   * (Resume or Discard): they were written for a turn that did not happen as planned.
   */
  private async pauseAfter(prompt: Prompt): Promise<void> {
    if (this.closed || this.paused || this.queue.length === 0) return;
    if (prompt.state !== 'cancelled' && prompt.state !== 'failed') return;
    this.paused = { reason: prompt.state === 'cancelled' ? 'stopped' : 'failed' };
    await this.saveQueue();
    this.emit({ type: 'status', status: this.state.status, paused: true });
  }

  /** Starts the next queued prompt; `idle` resolves when the queue has run dry. */
  private pump(): void {
    this.idle = (async () => {
      while (!this.closed && !this.paused && this.queue.length > 0) {
        const prompt = this.queue.shift()!;
        this.current = prompt;
        try {
          await this.saveQueue();
          await this.runTurn(prompt);
          await this.pauseAfter(prompt);
        } catch (err) {
          // The prompt's end is told like any other (a host waiting for it learns why it did not finish).
          prompt.state = 'failed';
          prompt.reason = this.secrets.redact(errorMessage(err));
          this.emit({ type: 'prompt', prompt: this.info(prompt) });
          // A lease lost before the turn began fails this prompt saying so (and the next one too).
          if (!(err instanceof LeaseLostError)) throw err;
          await this.pauseAfter(prompt);
        } finally {
          this.current = undefined;
        }
      }
      this.emit({ type: 'idle' });
    })().catch((err: unknown) => {
      this.logger.error(`session ${this.id}: ${(err as Error).stack ?? err}`);
      this.emit({ type: 'idle' });
    });
  }

  /** One turn: preflight in the order of docs/reference.md, Turns and prompts, the run, then the end-of-run order. */
  private async runTurn(prompt: Prompt): Promise<void> {
    const cwd = this.options.workspaceDirs[0]!;
    // 1. The UserPromptSubmit hook may block (nothing persisted) or add context.
    const hook = await this.guards.promptSubmitted(prompt.text);
    if (hook.block !== undefined) {
      prompt.state = 'blocked';
      prompt.reason = hook.block;
      this.emit({ type: 'prompt', prompt: this.info(prompt) });
      return;
    }
    // 3. Hook context (SessionStart's, then UserPromptSubmit's) becomes one-shot reminders.
    const oneShot: string[] = [...this.startContext.splice(0), ...hook.context, ...(prompt.goal ? [prompt.goal.reminder] : [])];
    // A todo list left unfinished and untouched for several turns (docs/reference.md, Tools).
    const staleTodos = staleTodoReminder(this.todos(), this.writer.currentTurn + 1);
    if (staleTodos) oneShot.push(staleTodos);
    const memoryNote = this.memory.takeUntold(); // a memory the user edited (or had updated) since the model was given it
    if (memoryNote) oneShot.push(memoryNote);
    if (this.mcpTools) oneShot.push(...(await this.useMcpTools(this.mcpTools)));
    // 2. Begin the turn: the model, thinking and system prompt are snapshotted now.
    let choice: ModelChoice;
    try {
      choice = await this.options.model();
    } catch (err) {
      prompt.state = 'failed';
      prompt.reason = errorMessage(err);
      this.emit({ type: 'prompt', prompt: this.info(prompt) });
      return;
    }
    if (prompt.attachments?.some((a) => a.image) && !choice.model.input.includes('image')) {
      prompt.state = 'failed'; // nothing was written: the user can switch model and send it again
      prompt.reason = `${choice.model.provider}/${choice.model.id} does not take images; the prompt was not sent. Remove the image or choose a model that reads images.`;
      this.emit({ type: 'prompt', prompt: this.info(prompt) });
      return;
    }
    if (prompt.stop) {
      prompt.state = 'cancelled'; // stopped before its turn began: nothing was written
      this.emit({ type: 'prompt', prompt: this.info(prompt) });
      return;
    }
    // The repository's facts now (cached: no git while .git is unchanged): the turn records its
    // branch. A stop asked meanwhile is applied once the kernel runs, below.
    const git = await this.workspaceGit(cwd);
    const { model, thinking } = choice;
    this.agent.state.model = model;
    this.agent.state.thinkingLevel = thinking as ThinkingLevel;
    // The skills' list is read again: the same skills give the same bytes (the cached prefix stays).
    this.agent.state.systemPrompt = this.systemPromptNow();
    this.skills?.turnStarted();
    this.repeats.turnStarted();
    this.refreshTools();
    // The mode is snapshotted too: the gate's rules (Ask and Plan change nothing).
    this.toolContext.approvals.mode = prompt.mode;
    const snapshot: ModelSnapshot = { provider: model.provider, id: model.id, thinking };
    const hold = this.options.holdPromptUntilAnswer;
    const held = (typeof hold === 'function' ? hold() : hold) === true;
    const since = Date.now();
    const turn = await this.writer.beginTurn(prompt.promptId, snapshot, prompt.mode, this.promptBlobs(), {
      hold: held,
      ...(prompt.goal?.auto ? { auto: 'goal' as const } : {}),
      ...(git?.branch ? { branch: git.branch } : {}),
    });
    // What the user attached: its record right after turn_begin, its text before the user's own.
    const attached = attachContext(prompt.attachments ?? []);
    if (attached.items.length > 0) {
      const [record] = await this.writer.append({ t: 'context', turn, items: attached.items });
      this.turnContext = record as ContextRecord;
    }
    this.log.turnStarted(turn, model, thinking);
    this.checkpoints.beginTurn(turn);
    prompt.state = 'running';
    this.active = {
      turn,
      prompt,
      choice,
      assistantStartedAt: Date.now(),
      ...(held ? { held: { messagesBefore: this.agent.state.messages.length, events: [] } } : {}),
      ...(git ? { git: { tree: git, since } } : {}),
    };
    this.emit({ type: 'prompt', prompt: this.info(prompt) });
    this.emit({ type: 'turn-start', turn, promptId: prompt.promptId, mode: prompt.mode });
    this.emit({ type: 'status', status: 'running', paused: this.paused !== null });
    // 4. The user message: one-shot reminders, the context the model has not been given yet (or
    // that changed since), the user's text last.
    const reminders = untold(await this.workspaceContext(cwd, git), this.agent.state.messages as Message[]);
    const images = attached.images.map((i) => ({ type: 'image' as const, mimeType: i.mimeType, data: this.blobs.get(i.blob).toString('base64') }));
    const mode = modeReminder(prompt.mode);
    const message = buildUserMessage(prompt.text, mode ? [...oneShot, mode] : oneShot, reminders, Date.now(), attached.blocks, images);
    this.userIds.set(message, userMessageId(this.id, prompt.messageKey));
    if (prompt.goal?.auto) this.automatic.add(message);
    // 5. The run.
    let runError: string | undefined;
    try {
      const run = this.agent.prompt(message);
      if (prompt.stop) this.agent.abort(); // stopped while the turn was prepared: the kernel takes a stop only once it runs
      await run;
      // A request the provider rejected for its length: compact once and retry.
      if (await this.compactor.afterOverflow(model)) await this.agent.continue();
      await this.runStopHooks(prompt);
    } catch (err) {
      runError = errorMessage(err);
    }
    // End of run: a context near its limit is compacted before the turn ends (docs/reference.md, Turns and prompts).
    if (!runError && this.endedCleanly() && this.compactor.nearLimit(model)) await this.compactor.run('threshold');
    await this.finishTurn(turn, prompt, runError);
  }

  /**
   * Stop hooks when the agent is done: a hook that blocks sends it back to work with its reason
   * (at most MAX_STOP_CONTINUATIONS times; `stop_hook_active` is true after the first).
   */
  private async runStopHooks(prompt: Prompt): Promise<void> {
    for (let i = 0; i < MAX_STOP_CONTINUATIONS && !prompt.stop && this.endedCleanly(); i++) {
      const reason = await this.guards.stopReason('Stop', i > 0);
      if (reason === undefined || prompt.stop) return;
      await this.agent.prompt(buildUserMessage(reminderBlock(`A Stop hook asks you to go on: ${reason}`), [], []));
    }
  }

  /**
   * This turn's tools: Braid's, the host's extra tools as they are now, and the running MCP
   * servers'; a changed list is stored and counted again (the prompt cache breaks once).
   */
  private refreshTools(): void {
    const tools = sortedByName([...this.ownTools, ...(this.options.extraTools?.(this.toolContext) ?? []), ...this.mcpNow]);
    if (!toolsDiffer(tools, this.agent.state.tools)) return;
    this.agent.state.tools = tools;
    this.prompt = undefined;
    this.fixedTokens = undefined;
  }

  /** The host's system prompt with the skills' list (when the session has skills). */
  private systemPromptNow(): string {
    return this.skills ? this.skills.systemPrompt(this.options.systemPrompt) : this.options.systemPrompt;
  }

  /** Starts (or finds) the MCP servers' tools for this turn. Returns reminders for the model (a server that failed). */
  private async useMcpTools(mcp: McpTurnTools): Promise<string[]> {
    const { tools, reminders } = await mcp.prepare();
    this.mcpNow = tools;
    this.refreshTools();
    return reminders;
  }

  /** The system prompt and the tools' shape as blobs of the session, for turn_begin (stored once each). */
  private promptBlobs(): { system: string; tools: string } {
    this.writer.fence(); // a folder removed or a lease lost says so, and no blob brings the folder back
    const text = this.agent.state.systemPrompt;
    if (this.prompt?.text !== text)
      this.prompt = {
        system: this.blobs.put(Buffer.from(text)),
        tools: this.prompt?.tools ?? this.blobs.put(Buffer.from(JSON.stringify(toolShape(this.agent.state.tools)))),
        text,
      };
    return { system: this.prompt.system, tools: this.prompt.tools };
  }

  /**
   * The call the log says this session made last, for the cache watch to compare the next call
   * with. Nothing when unreadable, or when a rewind or a compaction (by another process) changed
   * the conversation since: what that call sent is not known here, so no loss can be told.
   */
  private seedCacheWatch(): void {
    const last = readLastCall(this.options.store.layout.agentLog(this.writer.dir));
    const { model, prompt } = last?.turnBegin ?? {};
    if (!last || !model || !prompt || last.rewrittenSince) return;
    try {
      const systemPrompt = this.blobs.get(prompt.system).toString('utf8');
      const tools: unknown = JSON.parse(this.blobs.get(prompt.tools).toString('utf8'));
      const pairs = Array.isArray(tools) && tools.every((t) => Array.isArray(t) && t.length === 2 && t.every((x) => typeof x === 'string'));
      const { usage } = last;
      const count = (xs: number[]) => xs.reduce((n: number, x) => n + (Number.isFinite(x) && x > 0 ? x : 0), 0);
      const cached = count([usage.cacheRead, usage.cacheWrite]);
      const sent = count([usage.input, usage.cacheRead, usage.cacheWrite]);
      if (!pairs || typeof model.provider !== 'string' || typeof model.id !== 'string' || !Number.isFinite(usage.ts))
        throw new Error('a record of it is damaged');
      const shape = { provider: model.provider, model: model.id, thinking: String(model.thinking), systemPrompt, tools: tools as [string, string][] };
      this.cacheWatch.seed({ ...shape, at: usage.ts, cached, sent }, this.agent.state.messages as Message[]);
    } catch (err) {
      this.logger.warn(`session ${this.id}: the last call's prompt could not be read (${errorMessage(err)}); the next call is compared with nothing`);
    }
  }

  /** The work tree around `cwd` in a trusted workspace; undefined outside one, or when git is not to run. */
  private async workspaceGit(cwd: string): Promise<WorkspaceGit | undefined> {
    // git in an untrusted workspace is not run at all: its configuration is the workspace's.
    if (this.options.gitContext === false || !this.toolContext.trusted) return undefined;
    return workspaceGit(cwd, { factsFile: this.options.store.layout.gitFactsFile(path.basename(path.dirname(this.writer.dir))) });
  }

  /** The instruction files and the git context of `git` (the turn's work tree, when it has one), as reminders. */
  private async workspaceContext(cwd: string, git: WorkspaceGit | undefined): Promise<string[]> {
    const reminders = instructionReminders(cwd);
    if (git) reminders.push(await git.context());
    return reminders;
  }

  /** The run's last answer ended normally (not stopped by the user, not an error). */
  private endedCleanly(): boolean {
    const last = (this.agent.state.messages as Message[]).at(-1);
    return !(last?.role === 'assistant' && (last.stopReason === 'aborted' || last.stopReason === 'error'));
  }

  /**
   * End of run, in order: trailing tool calls closed, turn_end, status, prompt state; then the next
   * prompt. A writer that lost its lease, or whose log failed for good, writes none of it: the
   * turn fails saying so (the latter's end is told as not saved).
   */
  private async finishTurn(turn: number, prompt: Prompt, runError: string | undefined): Promise<void> {
    const messages = this.agent.state.messages as Message[];
    const closing = closeOpenToolCalls(messages, 'This tool call was stopped before it finished; its result is unknown.');
    messages.push(...closing);
    const last = [...messages].reverse().find((m): m is AssistantMessage => m.role === 'assistant');
    let outcome: TurnOutcome = 'completed';
    let error = runError;
    if (runError) outcome = 'failed';
    else if (this.active?.endedBecause) {
      outcome = 'failed';
      error = this.active.endedBecause;
    } else if (last?.stopReason === 'aborted') outcome = 'cancelled';
    else if (last?.stopReason === 'error') {
      outcome = 'failed';
      error = describeModelError(last.errorMessage);
    }
    error = this.secrets.redact(error);
    if (outcome === 'failed' && this.dropHeldTurn()) {
      this.active = undefined;
      this.log.turnEnded(turn, outcome, error);
      prompt.state = 'failed';
      prompt.unsent = true;
      if (error) prompt.reason = error;
      this.emit({ type: 'prompt', prompt: this.info(prompt) });
      this.emit({ type: 'turn-end', turn, outcome, ...(error ? { error } : {}), unsent: true, usage: this.state.usage });
      this.emit({ type: 'status', status: this.state.status, paused: this.paused !== null });
      return;
    }
    let unsaved = false;
    try {
      for (const m of closing) await this.writer.appendMessage(m);
      await this.recordCommits(turn);
      await this.writer.endTurn(outcome, error);
    } catch (err) {
      if (!(err instanceof LeaseLostError || err instanceof LogWriteFailedError)) throw err;
      [outcome, error, unsaved] = ['failed', err.message, err instanceof LogWriteFailedError];
    }
    this.releaseHeld(); // turn_end wrote a held turn's records (stopped before its answer)
    this.active = undefined;
    this.log.turnEnded(turn, outcome, error);
    prompt.state = outcome === 'completed' ? 'completed' : outcome === 'cancelled' ? 'cancelled' : 'failed';
    if (error) prompt.reason = error;
    this.emit({ type: 'prompt', prompt: this.info(prompt) });
    this.emit({ type: 'turn-end', turn, outcome, ...(error ? { error } : {}), ...(unsaved ? { unsaved } : {}), usage: this.state.usage });
    this.emit({ type: 'status', status: this.state.status, paused: this.paused !== null });
  }

  /** The commits made while the turn ran, one record each (docs/reference.md, Turns and prompts); when git fails, none, and the output channel says why. */
  private async recordCommits(turn: number): Promise<void> {
    const git = this.active?.git;
    if (!git) return;
    let made: Awaited<ReturnType<WorkspaceGit['madeSince']>>;
    try {
      made = await git.tree.madeSince(git.since);
    } catch (err) {
      this.logger.warn(`session ${this.id}: the commits of turn ${turn} could not be read (${errorMessage(err)}); none is recorded`);
      return;
    }
    for (const c of made?.commits ?? []) await this.writer.append({ t: 'commit', turn, root: made!.root, ...c });
  }

  /**
   * A held turn that failed before its answer: its records are forgotten and the kernel's
   * conversation is as it was before the prompt. Returns false when the turn was not held (or
   * was written already).
   */
  private dropHeldTurn(): boolean {
    const held = this.active?.held;
    if (!held || !this.writer.dropHeld()) return false;
    const messages = this.agent.state.messages;
    for (const m of messages.slice(held.messagesBefore)) {
      const id = this.recordIds.get(m as object);
      if (id) this.userMessageIds.delete(id);
    }
    this.agent.state.messages = messages.slice(0, held.messagesBefore);
    this.turnContext = undefined;
    return true;
  }

  /** Tells the UI of a record written, or, while the turn is held, keeps the event until its answer writes the record. */
  private emitRecord(event: SessionEvent): void {
    if (this.active?.held && this.writer.holding) this.active.held.events.push(event);
    else this.emit(event);
  }

  /** Once a held turn's records are written (its answer came), the UI hears of them, in order. */
  private releaseHeld(): void {
    const held = this.active?.held;
    if (!held || this.writer.holding) return;
    delete this.active!.held;
    for (const e of held.events) this.emit(e);
  }

  /** Records (and tells the UI of) a cache break of the call that answered `answer`, when there was one. */
  private async noteCacheBreak(turn: number, answer: AssistantMessage, messageId: string, model: Model<Api>): Promise<void> {
    if (answer.stopReason === 'error' || answer.stopReason === 'aborted') return; // no usage worth comparing
    const note = this.cacheWatch.answered(answer.usage, model);
    if (!note) return;
    const [record] = await this.writer.append({ t: 'cache_break', turn, messageId, ...note });
    this.log.cacheBroke(turn, note);
    this.emit({ type: 'cache-break', record: record as CacheBreakRecord });
  }

  /** A call repeated too often ends the turn; the user's rules and hooks decide the others. */
  private async beforeToolCall(ctx: BeforeToolCallContext, signal?: AbortSignal): Promise<BeforeToolCallResult | undefined> {
    const repeat = this.repeats.count(ctx.toolCall.name, ctx.args);
    if (repeat.kind === 'stop') {
      if (this.active) this.active.endedBecause = repeat.message;
      this.agent.abort(); // no further call of the model in this turn
      return { block: true, reason: repeat.message };
    }
    const verdict = await this.guards.beforeToolCall(ctx, signal);
    if (repeat.kind === 'remind' && !verdict?.block) this.repeatReminders.set(ctx.toolCall.id, repeat.message);
    return verdict;
  }

  /** The rules' and hooks' say on a result, then the reminder of a repeated call. */
  private async afterToolCall(ctx: AfterToolCallContext, signal?: AbortSignal): Promise<AfterToolCallResult | undefined> {
    const changed = await this.guards.afterToolCall(ctx, signal);
    const reminder = this.repeatReminders.get(ctx.toolCall.id);
    if (reminder === undefined) return changed;
    this.repeatReminders.delete(ctx.toolCall.id);
    return { ...changed, content: [...(changed?.content ?? ctx.result.content), { type: 'text', text: reminderBlock(reminder) }] };
  }

  /** Runs a subagent for the `task` tool inside the running turn (see runSubagent). */
  private async runSubagent(description: string, prompt: string, signal?: AbortSignal): Promise<{ agentId: string; text: string }> {
    const active = this.active;
    if (!active) throw new Error('a subagent can only run inside a turn');
    return runSubagent(
      {
        writer: this.writer,
        sessionId: this.id,
        turn: active.turn,
        model: active.choice.model,
        thinking: active.choice.thinking,
        apiKey: this.apiKey,
        ...(this.options.streamFn ? { streamFn: this.options.streamFn } : {}),
        tools: readOnlyTools(this.toolContext),
        ...(this.skills ? { skills: this.skills } : {}),
        secrets: this.secrets,
        stopReason: (active) => this.guards.stopReason('SubagentStop', active),
        toolGuards: { beforeToolCall: (c, s) => this.guards.beforeToolCall(c, s), afterToolCall: (c, s) => this.guards.afterToolCall(c, s) },
        ...(this.options.cacheLifetimeMs ? { cacheLifetimeMs: this.options.cacheLifetimeMs } : {}),
      },
      description,
      prompt,
      signal,
    );
  }

  /** Every side effect of the run happens here, in the kernel's event order. */
  private async onKernelEvent(event: AgentEvent): Promise<void> {
    const active = this.active;
    if (!active || this.closed) return;
    switch (event.type) {
      case 'turn_start':
        this.log.callStarting();
        return;
      case 'message_start':
        if (event.message.role === 'assistant') active.assistantStartedAt = Date.now();
        return;
      case 'message_update': {
        const e = event.assistantMessageEvent;
        if (e.type === 'text_delta') this.emit({ type: 'text-delta', turn: active.turn, delta: e.delta });
        else if (e.type === 'thinking_delta') this.emit({ type: 'thinking-delta', turn: active.turn, delta: e.delta });
        return;
      }
      case 'message_end': {
        // An error text from a provider (or a tool result quoting one) may echo the key it was sent; the log never gets it.
        const message = withImageBlobs(this.secrets.redactObject(event.message as Message), this.blobs);
        const id = (message.role === 'user' && this.userIds.get(event.message as object)) || newMessageId();
        if (message.role === 'user') this.userMessageIds.add(id);
        const record = await this.writer.appendMessage(message, id, this.automatic.has(event.message as object) ? AUTOMATIC_PROMPT : undefined);
        this.releaseHeld();
        this.recordIds.set(event.message as object, id);
        if (message.role === 'assistant') {
          this.log.callEnded(active.turn, message);
          await this.writer.appendUsage(callUsage(message, id, active.assistantStartedAt));
          await this.noteCacheBreak(active.turn, message, id, active.choice.model);
        }
        // The turn's context goes with its first user message (its prompt), once.
        const context = message.role === 'user' ? this.turnContext : undefined;
        if (context) this.turnContext = undefined;
        this.emitRecord({ type: 'message', record, ...(context ? { context } : {}) });
        return;
      }
      case 'tool_execution_start':
        this.log.toolStarted(event.toolCallId, event.toolName, event.args);
        await this.writer.append({ t: 'tool', turn: active.turn, toolCallId: event.toolCallId, name: event.toolName, phase: 'start' });
        this.emit({ type: 'tool-start', turn: active.turn, toolCallId: event.toolCallId, name: event.toolName, args: event.args });
        return;
      case 'tool_execution_end': {
        this.log.toolEnded(active.turn, event.toolCallId, event.toolName, event.isError);
        await this.writer.append({ t: 'tool', turn: active.turn, toolCallId: event.toolCallId, name: event.toolName, phase: 'end', isError: event.isError });
        const result = event.result as { content?: Array<{ type: string; text?: string }>; details?: { diff?: unknown } } | undefined;
        const text = (result?.content ?? []).map((b) => b.text ?? '').join('\n');
        const diff = typeof result?.details?.diff === 'string' ? result.details.diff : undefined;
        this.emit({
          type: 'tool-end',
          turn: active.turn,
          toolCallId: event.toolCallId,
          name: event.toolName,
          isError: event.isError,
          text,
          ...(diff ? { diff } : {}),
        });
        return;
      }
      default:
        return;
    }
  }
}

/**
 * Throws unless `dir` is a folder: a new session's tools act in its workspace folder, so a session
 * is never made for one that is missing (nothing is created: no session, no index row).
 */
export function requireWorkspaceFolder(dir: string): void {
  if (!isFolder(dir))
    throw new Error(`the workspace folder ${dir} does not exist or is not a folder, so no session was started there; create it, or pick another folder`);
}

/** A new session in the first workspace folder, which must exist. */
async function createHere(options: SessionOptions): Promise<SessionState> {
  const workspaceDir = options.workspaceDirs[0]!;
  requireWorkspaceFolder(workspaceDir);
  return options.store.create({ workspaceDir, ...(await identityHere(options)) });
}

/** The repository a new session's folder holds, asked of git only where git context is (a trusted workspace). */
async function identityHere(options: SessionOptions): Promise<{ identity?: RepoIdentity }> {
  const trusted = typeof options.trusted === 'function' ? options.trusted() : options.trusted;
  if (options.gitContext === false || !trusted) return {};
  const dir = options.workspaceDirs[0]!;
  const identity = await identityOf(dir, options.store.layout.gitFactsFile(workspaceKey(dir)));
  return identity ? { identity } : {};
}

/** A session opened in a window or folder other than its own: its tools would act on the wrong files. */
export class SessionElsewhereError extends Error {
  override readonly name = 'SessionElsewhereError';
  constructor(
    readonly sessionId: string,
    readonly workspaceDir: string,
    gone: boolean,
  ) {
    super(
      gone
        ? `session ${sessionId} belongs to ${workspaceDir}, which no longer exists; its tools cannot run anywhere else (fork it to keep the conversation)`
        : `session ${sessionId} belongs to ${workspaceDir}; open it there (its tools act on that folder's files, never on this one's)`,
    );
  }
}

/**
 * The real paths of the folders a session's tools act in here, its own workspace folder first
 * (relative paths and commands start there). Throws SessionElsewhereError when its folder is not
 * one of them: a session's tools act where its earlier writes happened, never in another folder.
 */
function foldersHere(state: SessionState, workspaceDirs: readonly string[]): string[] {
  const own = realPath(state.workspaceDir);
  const here = workspaceDirs.map(realPath).filter((d): d is string => d !== undefined);
  if (!own || !here.includes(own)) throw new SessionElsewhereError(state.id, state.workspaceDir, !own);
  return [own, ...here.filter((d) => d !== own)];
}
