// The window's current session without VS Code: what needs it comes through ChatHost
// (vscodeChatHost.ts maps it). No vscode import: test/unit/layering.test.ts checks this file and
// everything it imports, and test/unit/chat/currentSession.test.ts drives it with a fake host.
import type { MemoryFact, MemoryRecord } from '../../core/wire/records';
import type { Attachment } from '../../core/format/attachment';
import { errorMessage } from '../../core/errors';
import type { Logger } from '../../core/logger';
import { Session, SessionElsewhereError } from '../../core/session/session';
import { LogFollower } from '../../core/store/logFollower';
import { undoRewind, type RewindResult, type UndoResult } from '../../core/store/rewind';
import type { SessionStore } from '../../core/store/sessionStore';
import { SessionBusyError } from '../../core/store/writerLease';
import { SharedSessionError } from '../../core/store/errors';
import type { ChangeScope, FrameBody, SessionInfo, StreamFrame } from '../../protocol/frames';
import type { OlderPageMessage, PageCursor, QueueAction, SessionView, TurnReveal } from '../../protocol/messages';
import { ChatApprovals } from './chatApprovals';
import { NO_STORE, sessionOptions, type ChatHost } from './chatHost';
import { imageReader, olderPage, promptHistory, sessionPage } from './chatPages';
import { missingInfo, openSessionInfo, openSessionStatus, sessionInfo, sessionStatus, todoInfo, type QueueView, type SessionStatus } from './sessionInfo';
import { todoListOf } from '../../core/format/logFold';
import { SessionStream } from './sessionStream';
import { SideQuestions } from './sideQuestions';
import type { TurnTarget } from './turnReveal';
import { NextPrompts } from './nextPrompts';
import { suggestionsWanted } from '../../core/session/suggestion';
import type { TurnMode } from '../../core/wire/turnMode';
import type { FileDelta, UndoneChanges } from '../../core/store/changes';
import { DEFAULT_GOAL_BUDGET, GoalRun, type GoalEnd } from '../../core/session/goal';

/** What a page needs to render the current session from scratch. */
export interface ChatView {
  readonly session: SessionView | null;
  readonly live: StreamFrame[];
  readonly cursor: number;
  readonly promptHistory: string[];
}

/**
 * The session the window's chat works on (every Chat page shows it), and its stream of frames
 * (docs/reference.md, Stream frames). Switching to another session or a new one bumps a
 * generation counter; events of an older session are dropped (docs/reference.md, Turns and
 * prompts), and the pages get a fresh snapshot. A session another process writes, or one of
 * another folder, is followed read-only.
 */
export class CurrentSession {
  private session: Session | undefined;
  /** A session another process writes, shown read-only and followed live. */
  private following: { id: string; follower: LogFollower; reason?: string } | undefined;
  private stream: SessionStream | undefined;
  private generation = 0;
  /** A switch of session under way (see switchTo). */
  private switching: Promise<void> | undefined;
  private readonly listeners = new Set<() => void>();
  readonly approvals: ChatApprovals;
  private readonly sides: SideQuestions;
  /** The next-prompt suggestion offered after a turn of the open session. */
  private readonly nextPrompts: NextPrompts;
  /** The rewind this window just made, while it can be undone: its session, what it did, the prompt it put back in the input. */
  private rewound: { id: string; note: string; prompt: string } | undefined;
  /** The goal run (/goal) of the open session, while it runs: Stop ends it. */
  private goal: GoalRun | undefined;
  /** The turn a search result opened the shown session at, until a prompt is sent or another session shown. */
  private reveal: { sessionId: string; view: TurnReveal } | undefined;
  private reveals = 0;

  constructor(
    private readonly store: SessionStore | undefined,
    private readonly host: ChatHost,
    private readonly logger: Logger,
  ) {
    this.sides = new SideQuestions((m) => host.post(m));
    this.nextPrompts = new NextPrompts(
      async () => {
        const setting = host.suggestionSetting?.() ?? 'off';
        return setting !== 'off' && suggestionsWanted(setting, (await host.chooseModel()).model);
      },
      (m) => host.post(m),
      logger,
    );
    this.approvals = new ChatApprovals(
      (body) => {
        const requestId = this.stream?.active;
        if (!requestId || body.kind !== 'runtime-event') return false;
        this.stream!.push(body, true);
        return true;
      },
      () => host.reveal(),
    );
  }

  /** Calls `listener` when the current session, its title, its status or its usage changes. */
  onDidChange(listener: () => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }

  get currentId(): string | undefined {
    return this.session?.id ?? this.following?.id;
  }

  /** The open session's permission rules, its session rules included; undefined when none is open here. */
  get permissionRules(): Session['permissionRules'] | undefined {
    return this.session?.permissionRules;
  }

  /** The last frame's cursor of the current session (0 when none). */
  get cursor(): number {
    return this.stream?.ring.cursor ?? 0;
  }

  /** The store, or the error that says it could not be opened. Nothing is shown without it. */
  private requireStore(): SessionStore {
    if (!this.store) throw new Error(NO_STORE);
    return this.store;
  }

  /** What a page needs to render the current session from scratch. */
  view(): ChatView {
    const id = this.currentId;
    if (!id) return { session: null, live: [], cursor: 0, promptHistory: this.promptHistory([]) };
    const active = this.stream?.active;
    const suggestion = this.nextPrompts.suggestionFor(id);
    const session: SessionView = {
      ...sessionPage(this.requireStore(), id, this.info()),
      ...(this.following ? { readOnly: true } : {}),
      ...(this.following?.reason ? { readOnlyReason: this.following.reason } : {}),
      ...(active ? { activeRequest: active } : {}),
      ...(this.rewound?.id === id ? { undoableRewind: this.rewound.note } : {}),
      ...(suggestion ? { suggestion } : {}),
      ...(this.reveal?.sessionId === id ? { reveal: this.reveal.view } : {}),
    };
    return { session, live: this.stream?.liveFrames() ?? [], cursor: this.cursor, promptHistory: this.promptHistory(session.entries) };
  }

  /** Earlier prompts, newest first: this session's (from the shown entries, else its newest page), then other sessions' of the workspace. */
  promptHistory(entries?: SessionView['entries']): string[] {
    return this.store ? promptHistory(this.store, this.currentId, this.host.workspaceDirs()[0], entries) : [];
  }

  /** Frames after `cursor`, or undefined when the page must take a snapshot instead. */
  framesAfter(cursor: number): StreamFrame[] | undefined {
    return this.stream?.ring.after(cursor);
  }

  /** The page of `limit` messages before `before`, for the page that asked; undefined when the session is no longer shown. */
  olderPage(sessionId: string, before: PageCursor, limit: number): OlderPageMessage | undefined {
    return sessionId === this.currentId ? olderPage(this.requireStore(), sessionId, before, limit) : undefined;
  }

  /** The current session's info: the open session's queue, a followed one's as its state has it. */
  private info(): SessionInfo {
    if (this.session) return this.infoOf(this.session);
    const id = this.following!.id;
    let queue: QueueView = { queue: [], paused: false };
    try {
      const state = this.requireStore().get(id); // another process writes the queue: read once per snapshot, never per frame
      queue = { queue: state.queue, paused: state.paused !== null, ...(state.paused ? { pauseReason: state.paused.reason } : {}) };
    } catch (err) {
      this.logger.warn(`session ${id}: ${errorMessage(err)}`);
    }
    const { index } = this.requireStore();
    const info = sessionInfo(index, id, queue);
    if (!info) return missingInfo(id);
    const fold = index.summaryOf(id)?.fold;
    return { ...info, ...todoInfo(fold && todoListOf(fold)) };
  }

  /** An open session's info, from memory (sessionInfo.ts): no index query, however many frames a turn has. */
  private infoOf(session: Session): SessionInfo {
    const info = openSessionInfo(session);
    if (info) return info;
    // The folder went away under the open session (deleted elsewhere, removed by hand).
    this.logger.warn(`session ${session.id}: its folder went away`);
    return missingInfo(session.id);
  }

  /** The current session's title and token count, for the status bar: the open session's from memory. */
  status(): SessionStatus | undefined {
    if (this.session) return openSessionStatus(this.session);
    const id = this.following?.id;
    return id ? sessionStatus(this.requireStore().index, id) : undefined;
  }

  /**
   * Runs a prompt from the page in the current session, in `mode` (Agent when absent), starting a
   * session when there is none. `attachments` reads what its chips name; a chip that cannot be
   * read fails the prompt saying why. `expand` gives the text a `/name args` line sends (a custom
   * command's, an MCP server's prompt); when it throws, nothing is sent and the page says why.
   */
  async prompt(
    requestId: string,
    text: string,
    steer: boolean,
    {
      mode,
      attachments,
      expand,
      goal,
    }: {
      mode?: TurnMode;
      attachments?: () => Promise<readonly Attachment[]>;
      expand?: (text: string) => string | Promise<string>;
      /** `/goal`: the text is a goal; automatic turns follow until it is done (docs/ui.md, Chat view). */
      goal?: boolean;
    } = {},
  ): Promise<void> {
    this.rewound = undefined; // the session goes on: its last rewind can no longer be undone
    this.reveal = undefined; // and the turn a search opened it at is behind it (the page drops its marks itself)
    this.nextPrompts.withdraw();
    const fail = (error: string) => this.pushOrPost({ kind: 'turn-terminal', requestId, outcome: 'failed', error });
    try {
      await this.switching; // a switch under way ends first: the prompt is for the session shown next
      // Another process took the lease over while this window was not answering: open the session
      // again, which follows that process read-only, or writes here if it has let go since.
      if (this.session?.takenOver) await this.switchTo(this.session.id);
      if (this.following)
        return fail(this.following.reason ?? 'Another window is writing this session, so it is read-only here. Start a New Session, or fork this one.');
      // A slash command is sent as its expansion (one that is gone fails the prompt, saying so);
      // both are had before a new session is made, so a failure leaves none behind.
      const sent = expand ? await expand(text) : text;
      const attached = attachments ? await attachments() : [];
      if (!this.session) {
        this.session = await this.open(undefined);
        this.host.shown.set(this.session.id);
        this.changed();
      }
      if (goal) return await this.startGoal(this.session, sent, requestId, mode, attached);
      const info = await this.session.submit(sent, {
        messageKey: requestId,
        steerIfActive: steer,
        ...(mode ? { mode } : {}),
        ...(attached.length > 0 ? { attachments: attached } : {}),
      });
      if (info.state === 'completed') this.pushOrPost({ kind: 'turn-terminal', requestId, outcome: 'completed' });
    } catch (err) {
      fail(errorMessage(err));
    }
  }

  /**
   * Starts a goal run in `session`; when it ends, a line under the transcript says why (done,
   * failed, stopped, budget spent). One goal at a time: a second waits for none, it is refused.
   */
  private async startGoal(session: Session, goal: string, requestId: string, mode: TurnMode | undefined, attachments: readonly Attachment[]): Promise<void> {
    if (this.goal) throw new Error('A goal is already being worked on; stop it before setting another.');
    const run = await GoalRun.start(session, goal, {
      budget: this.host.goalBudget?.() ?? DEFAULT_GOAL_BUDGET,
      messageKey: requestId,
      attachments,
      ...(mode ? { mode } : {}),
    });
    this.goal = run;
    void run.finished.then((end) => {
      if (this.goal === run) this.goal = undefined;
      if (this.session === session) this.stream?.push({ kind: 'runtime-event', event: goalNotice(requestId, end) }, true);
    });
  }

  /** A frame for the current stream; before a session exists, straight to the pages. */
  private pushOrPost(body: FrameBody): void {
    if (this.stream) this.stream.push(body);
    else this.host.post({ type: 'frames', sessionId: '', frames: [{ ...body, cursor: 0 } as StreamFrame] });
  }

  /** Stops the running turn or compaction (the page's Stop). */
  cancel(): void {
    if (this.goal) void this.goal.stop();
    void this.session?.cancel();
  }

  /** Steers a queued prompt into the running turn, cancels it, or resumes or discards a paused queue. */
  async queueAction(action: QueueAction, promptId: string): Promise<void> {
    const session = this.session;
    if (!session) return;
    if (action === 'steer') await session.steer(promptId);
    else if (action === 'cancel') await session.cancel(promptId);
    else if (action === 'discard') await session.discardQueue();
    else await session.resume();
    this.stream?.push({ kind: 'session-updated', info: this.infoOf(session) });
  }

  /**
   * Keep or Undo from the Changes list, in the open session; the page's lists follow. Returns the
   * files an undo left alone, and why.
   */
  async changeFiles(action: 'keep' | 'undo', scope: ChangeScope, keys: readonly string[] | 'all'): Promise<UndoneChanges> {
    const session = this.changing();
    let result: UndoneChanges = { undone: [], reverse: [], skipped: [] };
    if (action === 'keep') await session.keepChanges(keys, scope);
    else result = await session.undoChanges(keys, scope);
    this.stream?.push({ kind: 'session-updated', info: this.infoOf(session) });
    return result;
  }

  /** Undoes an Undo of the Changes list in `sessionId` (its notification's Undo), when that session is still open here. */
  async redoChanges(sessionId: string, reverse: readonly FileDelta[]): Promise<UndoneChanges> {
    const session = this.changing();
    if (session.id !== sessionId) throw new Error('Another session is open in the Chat view now; open that session to undo its changes again.');
    const result = await session.redoChanges(reverse);
    this.stream?.push({ kind: 'session-updated', info: this.infoOf(session) });
    return result;
  }

  /** The open session, for Keep and Undo: refused while another window writes it. */
  private changing(): Session {
    if (this.following) throw new Error(this.following.reason ?? 'Another window is writing this session; keep or undo its changes there.');
    if (!this.session) throw new Error('Open a session in the Chat view first.');
    return this.session;
  }

  /** A file of the open session's Changes list with the images it is compared by, for its diff. */
  changedFile(key: string, scope: ChangeScope): FileDelta | undefined {
    return this.session?.changedFile(key, scope);
  }

  /** Compacts the open session now (/compact, Braid: Compact Session). False when there is nothing to summarize. */
  async compact(focus?: string): Promise<boolean> {
    if (this.following) throw new Error(this.following.reason ?? 'Another window is writing this session; compact it there.');
    if (!this.session) throw new Error('Open a session in the Chat view first.');
    return this.session.compact(focus);
  }

  /** The open session, for a change of its memory: refused while another window writes it. */
  private remembering(): Session {
    if (this.following) throw new Error(this.following.reason ?? 'Another window is writing this session; change its memory there.');
    if (!this.session) throw new Error('Open a session in the Chat view first.');
    return this.session;
  }

  /** The open session's title (undefined: no session open). */
  get sessionTitle(): string | undefined {
    return this.session?.title;
  }

  /** The open session's memory (undefined: none yet, or no session open). */
  get memoryRecord(): MemoryRecord | undefined {
    return this.session?.memoryRecord;
  }

  /** Has the model write the open session's memory now (/remember, Braid: Update Session Memory). */
  updateMemory(): Promise<MemoryRecord> {
    return this.remembering().updateMemory();
  }

  /** The user's edit of the open session's memory. */
  setMemory(facts: readonly MemoryFact[]): Promise<MemoryRecord> {
    return this.remembering().setMemory(facts);
  }

  /** A side question (/btw) about the open session, answered in the page's overlay. */
  askSide(id: string, question: string): Promise<void> {
    return this.sides.ask(this.session, id, question);
  }

  /** Keeps an answered side question as a fork; returns the fork's id. */
  keepSide(id: string): Promise<string | undefined> {
    return this.sides.keep(this.requireStore(), id);
  }

  /** Rewinds the open session (it holds the writer lease) and shows the shortened transcript. */
  async rewind(messageId: string, files: boolean): Promise<RewindResult> {
    if (!this.session) throw new Error('no session is open for writing here');
    this.nextPrompts.withdraw(); // it followed the turns the rewind drops
    const result = await this.session.rewind(messageId, { files });
    this.stream?.push({ kind: 'messages-rewound' });
    this.host.resync();
    return result;
  }

  /** Offers Undo in the page for the rewind just made of the shown session `id` (until it goes on). */
  noteRewind(id: string, note: string, prompt: string): void {
    if (id !== this.currentId) return;
    this.rewound = { id, note, prompt };
    this.host.resync();
  }

  /**
   * Undoes the last rewind of `id`: through the open session when this window writes it,
   * otherwise under the session's lease. Returns what came back and the prompt the rewind had
   * put back in the input, if this window made it.
   */
  async undoRewind(id: string): Promise<UndoResult & { prompt?: string }> {
    if (this.following?.id === id) throw new Error(this.following.reason ?? 'Another window is writing this session; undo the rewind there.');
    if (this.session?.id === id) this.nextPrompts.withdraw();
    const result = this.session?.id === id ? await this.session.undoRewind() : await undoRewind(this.requireStore(), id);
    const prompt = this.rewound?.id === id ? this.rewound.prompt : undefined;
    if (this.rewound?.id === id) this.rewound = undefined;
    if (this.currentId === id) {
      this.stream?.push({ kind: 'messages-rewound' });
      this.host.resync();
    }
    return { ...result, ...(prompt === undefined ? {} : { prompt }) };
  }

  /** Shows a new, empty session; the next prompt creates it. */
  async newSession(): Promise<void> {
    await this.switchTo(undefined);
  }

  /** Shows a stored session; at turn `at` (a search result's), with the searched words marked. */
  async openSession(id: string, at?: TurnTarget): Promise<void> {
    await this.switchTo(id, at);
  }

  /**
   * Switches the chat to `id` (a new session when undefined). A prompt that arrives meanwhile waits
   * for the switch and goes to the session switched to, never to the one being closed.
   */
  private switchTo(id: string | undefined, at?: TurnTarget): Promise<void> {
    return this.serialized(() => this.switchNow(id, at));
  }

  /** Runs `change` of the current session after the switches under way; prompts sent meanwhile wait for it. */
  private serialized<T>(change: () => Promise<T>): Promise<T> {
    const switching = (this.switching ?? Promise.resolve()).then(change);
    const settled = switching.then(
      () => undefined,
      () => undefined,
    );
    this.switching = settled;
    void settled.then(() => {
      if (this.switching === settled) this.switching = undefined;
    });
    return switching;
  }

  /** The session this window writes (not one it follows), and whether a turn or a goal's turns run in it. */
  get writing(): { id: string; running: boolean } | undefined {
    return this.session && { id: this.session.id, running: this.session.isRunning || this.goal !== undefined };
  }

  /**
   * Runs `work` with the session `id` closed here (its writer lease given back) and shown
   * read-only for `reason`, then opens it for writing again, reading what `work` wrote: for a
   * change another module makes to the whole session under its lease (a sync bringing in another
   * machine's turns). Only an idle session is closed (closing stops a running turn); otherwise
   * `work` just runs. A prompt sent meanwhile waits, and goes to the session opened again.
   */
  closedWhile<T>(id: string, reason: string, work: () => Promise<T>): Promise<T> {
    return this.serialized(async () => {
      if (this.writing?.id !== id || this.writing.running) return work();
      await this.closeCurrent();
      this.follow(id, reason);
      this.host.resync();
      try {
        return await work();
      } finally {
        await this.switchNow(id, undefined);
      }
    });
  }

  /** Closes the open session (or stops following one); nothing of it reaches the pages any more. */
  private async closeCurrent(): Promise<void> {
    const previous = this.session;
    this.generation++;
    this.rewound = undefined;
    this.reveal = undefined;
    this.nextPrompts.withdraw();
    this.approvals.denyAll();
    this.session = undefined;
    this.stream = undefined;
    this.following?.follower.stop();
    this.following = undefined;
    // A session that cannot close cleanly (its folder removed, say) must not keep the window on it.
    await previous?.close().catch((err: unknown) => this.logger.warn(`closing session ${previous.id}: ${errorMessage(err)}`));
  }

  private async switchNow(id: string | undefined, at: TurnTarget | undefined): Promise<void> {
    await this.closeCurrent();
    if (id) await this.openOrFollow(id);
    // Its own id, so a page brings each opening on screen once, not on every snapshot after it.
    if (id && at) this.reveal = { sessionId: id, view: { id: `${Date.now()}-${++this.reveals}`, ...at } };
    this.host.shown.set(id);
    this.host.resync();
    this.changed();
  }

  /**
   * Shows again the session this window showed before a reload. The window that held it may
   * still be letting go of its writer lease, so a busy session is retried for a few seconds.
   */
  async restore(): Promise<void> {
    const id = this.host.shown.get();
    // Without a store nothing can be shown; the id is kept for a window whose store opens.
    if (!id || this.currentId || !this.store) return;
    const generation = this.generation;
    try {
      await this.openOrFollow(id, 5_000, () => generation !== this.generation);
    } catch (err) {
      this.logger.info(`could not show session ${id} again: ${errorMessage(err)}`);
      this.host.shown.set(undefined);
      return;
    }
    if (generation !== this.generation) return; // the user moved on meanwhile
    this.host.resync();
    this.changed();
  }

  /**
   * Opens `id` for writing here. A lease whose holder is gone (or silent past its expiry) is taken
   * over on opening, as every process does; a live holder's is waited for up to `waitMs` (a window
   * letting go), then the session is followed read-only. `abandoned` stops the waiting.
   */
  private async openOrFollow(id: string, waitMs = 0, abandoned = () => false): Promise<void> {
    const deadline = Date.now() + waitMs;
    const keep = async (session: Session) => {
      if (abandoned())
        await session.close(); // another session was chosen while this one opened
      else this.session = session;
    };
    for (;;) {
      try {
        return await keep(await this.open(id));
      } catch (err) {
        if (err instanceof SessionElsewhereError) return this.follow(id, elsewhereNote(err));
        if (err instanceof SharedSessionError) return this.follow(id, err.message);
        if (!(err instanceof SessionBusyError)) throw err;
        if (Date.now() >= deadline || abandoned()) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    if (!abandoned()) this.follow(id);
  }

  /**
   * Shows a session read-only, following its log live: another process writes it, or (`reason`)
   * it belongs to another folder or was pulled from a git remote (a pull may bring more of it).
   */
  private follow(id: string, reason?: string): void {
    const generation = this.generation;
    const store = this.requireStore();
    const follower = new LogFollower(store.layout.agentLog(store.locate(id)), () => {
      if (generation === this.generation) this.host.resync();
    }).start();
    this.following = { id, follower, ...(reason ? { reason } : {}) };
    this.logger.info(`session ${id} ${reason ? 'cannot be written here' : 'is written by another process'}; following it read-only`);
  }

  private async open(id: string | undefined): Promise<Session> {
    // The generation this session belongs to is the one it was asked for in.
    const generation = this.generation;
    const session = await Session.open(await sessionOptions(this.requireStore(), this.host, this.approvals, this.logger), id);
    const stream = new SessionStream(
      session.id,
      () => this.infoOf(session),
      (frames) => {
        if (generation === this.generation) this.host.post({ type: 'frames', sessionId: session.id, frames });
      },
      imageReader(this.requireStore(), session.id),
    );
    if (generation === this.generation) this.stream = stream;
    session.onEvent((event) => {
      if (generation !== this.generation) return;
      stream.onEvent(event);
      this.nextPrompts.onEvent(session, event);
      if (event.type === 'turn-end' || event.type === 'status') this.changed();
    });
    if (!id) stream.push({ kind: 'session-updated', info: this.infoOf(session) });
    return session;
  }

  /** Closes the session and stops following; nothing of it reaches the pages any more. */
  dispose(): void {
    this.listeners.clear();
    this.generation++;
    this.nextPrompts.dispose();
    this.approvals.denyAll();
    this.following?.follower.stop();
    void this.session?.close();
    this.session = undefined;
  }
}

/** The chat's note for a session of another folder: its tools would act on that folder's files. */
function elsewhereNote(err: SessionElsewhereError): string {
  return `This session belongs to ${err.workspaceDir}, so it is read-only in this window: its tools act on that folder's files. Open that folder to continue it.`;
}

/** The line that says why a goal run ended. */
function goalNotice(requestId: string, end: GoalEnd): { type: 'notice'; key: string; text: string; tone: 'info' | 'error' } {
  return { type: 'notice', key: `notice:goal:${requestId}`, text: end.message, tone: end.stop === 'failed' ? 'error' : 'info' };
}
