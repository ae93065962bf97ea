import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import { resolveApiKey } from '../../core/model/apiKey';
import { Session, SessionElsewhereError } from '../../core/session/session';
import { systemPrompt } from '../../core/session/systemPrompt';
import { promptText } from '../../core/format/messageText';
import { shownTitle } from '../../core/format/titles';
import { LogFollower } from '../../core/store/logFollower';
import { undoRewind, type RewindResult } from '../../core/store/rewind';
import type { SessionState, UsageTotals } from '../../core/format/sessionState';
import type { SessionStore } from '../../core/store/sessionStore';
import { PAGE_SIZE } from '../../core/wire/newestPage';
import { SessionBusyError } from '../../core/store/writerLease';
import type { FrameBody, SessionInfo, StreamFrame, TranscriptEntry } from '../../protocol/frames';
import { workspaceKey } from '../../core/workspace/workspaceKey';
import type { HostToWebview, OlderPageMessage, PageCursor, SessionView } from '../../protocol/messages';
import { chooseModel } from '../lm/chooseModel';
import { vscodeAwareStream } from '../lm/vscodeLmStream';
import { readApprovalPolicy, readCompactionSettings, readPromptHook } from '../settings';
import { ChatApprovals } from './chatApprovals';
import { SessionStream } from './sessionStream';
import { SideQuestions } from './sideQuestions';
import { toEntries } from './transcript';

/** The workspace-state key of the session the Chat view shows. */
const SHOWN_KEY = 'braid.chat.shownSession';

/** The key under which SecretStorage keeps a provider's API key. */
export const secretKey = (provider: string) => `braid.apiKey.${provider}`;

const toWire = (c: { offset: number; minRewind: number } | undefined): PageCursor | undefined => (c ? { offset: c.offset, minRewind: Number.isFinite(c.minRewind) ? c.minRewind : null } : undefined);

/**
 * The session the window's chat works on (every Chat page shows it), and its stream of frames (docs/reference.md, Stream frames). Switching to
 * another session or a new one bumps a generation counter; events of an older session are
 * dropped (docs/reference.md, Turns and prompts), and the page gets a fresh snapshot.
 */
export class ChatSessions implements vscode.Disposable {
  private session: Session | undefined;
  /** A session another process writes, shown read-only and followed live. */
  private following: { id: string; follower: LogFollower; reason?: string } | undefined;
  private stream: SessionStream | undefined;
  private generation = 0;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the current session, its title, its status or its usage changes. */
  readonly onDidChange = this.changed.event;
  readonly approvals: ChatApprovals;
  private readonly sides: SideQuestions;
  /** The rewind this window just made, while it can be undone: its session, what it did, the prompt it put back in the input. */
  private rewound: { id: string; note: string; prompt: string } | undefined;

  constructor(
    private readonly store: SessionStore | undefined,
    private readonly secrets: vscode.SecretStorage,
    private readonly logger: Logger,
    private readonly post: (message: HostToWebview) => void,
    /** Remembers the session shown, so a reloaded window shows it again. */
    private readonly memory: vscode.Memento,
    /** Asks the provider to send the page a fresh snapshot. */
    private readonly resync: () => void,
    reveal: () => void,
  ) {
    this.sides = new SideQuestions(store, post);
    this.approvals = new ChatApprovals((body) => {
      const requestId = this.stream?.active;
      if (!requestId || body.kind !== 'runtime-event') return false;
      this.stream!.push(body.event.type === 'approval' ? { ...body, event: { ...body.event, requestId } } : body, true);
      return true;
    }, reveal);
  }

  get currentId(): string | undefined {
    return this.session?.id ?? this.following?.id;
  }

  /** The last frame's cursor of the current session (0 when none). */
  get cursor(): number {
    return this.stream?.ring.cursor ?? 0;
  }

  /** What the page needs to render the current session from scratch. */
  view(): { session: SessionView | null; live: StreamFrame[]; cursor: number; promptHistory: string[] } {
    const id = this.currentId;
    if (!id || !this.store) return { session: null, live: [], cursor: 0, promptHistory: this.promptHistory([]) };
    const page = this.store.newestPage(id, PAGE_SIZE);
    const before = toWire(page.before);
    const active = this.stream?.active;
    const session: SessionView = {
      info: this.info(id),
      entries: toEntries(page.messages, page.compactions),
      ...(before ? { before } : {}),
      ...(this.following ? { readOnly: true } : {}),
      ...(this.following?.reason ? { readOnlyReason: this.following.reason } : {}),
      ...(active ? { activeRequest: active } : {}),
      ...(page.skippedLines > 0 ? { damagedLines: page.skippedLines } : {}),
      ...(this.rewound?.id === id ? { undoableRewind: this.rewound.note } : {}),
    };
    return { session, live: this.stream?.liveFrames() ?? [], cursor: this.cursor, promptHistory: this.promptHistory(session.entries) };
  }

  /** Earlier prompts, newest first: this session's (from the shown page), then other sessions' of the workspace. */
  promptHistory(entries?: readonly TranscriptEntry[]): string[] {
    // Without the shown entries (the /history command), the prompts of the newest page.
    const id = this.currentId;
    const prompts = entries
      ? entries.flatMap((e) => (e.kind === 'user' ? [e.text] : []))
      : id && this.store ? this.store.newestPage(id, PAGE_SIZE).messages.flatMap((m) => (m.message.role === 'user' ? [promptText(m.message)] : [])) : [];
    const mine = prompts.reverse();
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const others = this.store && folder
      ? this.store.index.list({ workspaceKey: workspaceKey(folder), limit: 50 }).filter((r) => r.id !== this.currentId).map((r) => r.firstPrompt)
      : [];
    return [...new Set([...mine, ...others].map((t) => t.trim()).filter(Boolean))].slice(0, 200);
  }

  /** Compacts the open session now (/compact, Braid: Compact Session). False when there is nothing to summarize. */
  async compact(focus?: string): Promise<boolean> {
    if (this.following) throw new Error('Another window is writing this session; compact it there.');
    if (!this.session) throw new Error('Open a session in the Chat view first.');
    return this.session.compact(focus);
  }

  /** Frames after `cursor`, or undefined when the page must take a snapshot instead. */
  framesAfter(cursor: number): StreamFrame[] | undefined {
    return this.stream?.ring.after(cursor);
  }

  /** The page of entries before `before`, for the page that asked; undefined when the session is no longer shown. */
  olderPage(sessionId: string, before: PageCursor): OlderPageMessage | undefined {
    if (!this.store || sessionId !== this.currentId) return undefined;
    const page = this.store.newestPage(sessionId, PAGE_SIZE, { offset: before.offset, minRewind: before.minRewind ?? Number.POSITIVE_INFINITY });
    const next = toWire(page.before);
    return { type: 'olderPage', sessionId, entries: toEntries(page.messages, page.compactions, true), ...(next ? { before: next } : {}) };
  }

  private info(id: string): SessionInfo {
    let state: SessionState;
    try {
      state = this.store!.get(id); // a broken state.json is rebuilt by the store
    } catch (err) {
      // The folder went away under the open session (deleted elsewhere, removed by hand); this runs
      // inside session events, where a throw would be uncaught.
      this.logger.warn(`session ${id}: ${(err as Error).message}`);
      return { id, title: '', status: 'error', usage: { input: 0, output: 0, cacheRead: 0, costTotal: 0 }, model: '', queue: [], paused: false };
    }
    // From the index, as usage reports count it: the session's own calls, and a fork's inherited ones apart.
    const { own, inherited, history } = this.store!.index.sessionUsage(id);
    const info = (u: UsageTotals) => ({ input: u.input, output: u.output, cacheRead: u.cacheRead, costTotal: u.cost });
    return {
      id,
      title: shownTitle(state),
      status: state.status,
      usage: info(own),
      ...(inherited.calls > 0 ? { history: info(history) } : {}),
      model: state.model ? `${state.model.provider} · ${state.model.id}` : '',
      queue: (this.session?.queued ?? state.queue).map((q) => ({ promptId: q.promptId, text: q.text })),
      paused: this.session ? this.session.isPaused : state.paused !== null,
    };
  }

  /** Runs a prompt from the page in the current session, starting a session when there is none. */
  async prompt(requestId: string, text: string, steer: boolean): Promise<void> {
    this.rewound = undefined; // the session goes on: its last rewind can no longer be undone
    const fail = (error: string) => this.pushOrPost({ kind: 'turn-terminal', requestId, outcome: 'failed', error });
    if (!this.store) return fail('The session store could not be opened; see "Braid: Show Log".');
    try {
      // Another process took the lease over while this window was not answering: open the session
      // again, which follows that process read-only, or writes here if it has let go since.
      if (this.session?.takenOver) await this.switchTo(this.session.id);
      if (this.following) return fail(this.following.reason ?? 'Another window is writing this session, so it is read-only here. Start a New Session, or fork this one.');
      if (!this.session) {
        this.session = await this.open(undefined);
        void this.memory.update(SHOWN_KEY, this.session.id);
        this.changed.fire();
      }
      const info = await this.session.submit(text, { messageKey: requestId, steerIfActive: steer });
      if (info.state === 'completed') this.pushOrPost({ kind: 'turn-terminal', requestId, outcome: 'completed' });
    } catch (err) {
      fail((err as Error).message);
    }
  }

  /** A frame for the current stream; before a session exists, straight to the page. */
  private pushOrPost(body: FrameBody): void {
    if (this.stream) this.stream.push(body);
    else this.post({ type: 'frames', sessionId: '', frames: [{ ...body, cursor: 0 } as StreamFrame] });
  }

  /** Stops the running turn or compaction (the page's Stop). */
  cancel(): void {
    void this.session?.cancel();
  }

  /** Steers a queued prompt into the running turn, cancels it, or resumes a paused queue. */
  async queueAction(action: 'steer' | 'cancel' | 'resume', promptId: string): Promise<void> {
    if (!this.session) return;
    if (action === 'steer') await this.session.steer(promptId);
    else if (action === 'cancel') await this.session.cancel(promptId);
    else await this.session.resume();
    this.stream?.push({ kind: 'session-updated', info: this.info(this.session.id) });
  }

  /** A side question (/btw) about the open session, answered in the page's overlay. */
  askSide(id: string, question: string): Promise<void> {
    return this.sides.ask(this.session, id, question);
  }

  /** Keeps an answered side question as a fork; returns the fork's id. */
  keepSide(id: string): Promise<string | undefined> {
    return this.sides.keep(id);
  }

  /** Rewinds the open session (it holds the writer lease) and shows the shortened transcript. */
  async rewind(messageId: string, files: boolean): Promise<RewindResult> {
    if (!this.session) throw new Error('no session is open for writing here');
    const result = await this.session.rewind(messageId, { files });
    this.stream?.push({ kind: 'messages-rewound' });
    this.resync();
    return result;
  }

  /** Offers Undo in the page for the rewind just made of the shown session `id` (until it goes on). */
  noteRewind(id: string, note: string, prompt: string): void {
    if (id !== this.currentId) return;
    this.rewound = { id, note, prompt };
    this.resync();
  }

  /**
   * Undoes the last rewind of `id`: through the open session when this window writes it,
   * otherwise under the session's lease. Returns what came back and the prompt the rewind had
   * put back in the input, if this window made it.
   */
  async undoRewind(id: string): Promise<{ turns: number; files: string[]; prompt?: string }> {
    if (this.following?.id === id) throw new Error(this.following.reason ?? 'Another window is writing this session; undo the rewind there.');
    const result = this.session?.id === id ? await this.session.undoRewind() : await undoRewind(this.store!, id);
    const prompt = this.rewound?.id === id ? this.rewound.prompt : undefined;
    if (this.rewound?.id === id) this.rewound = undefined;
    if (this.currentId === id) {
      this.stream?.push({ kind: 'messages-rewound' });
      this.resync();
    }
    return { ...result, ...(prompt === undefined ? {} : { prompt }) };
  }

  /** Shows a new, empty session; the next prompt creates it. */
  async newSession(): Promise<void> {
    await this.switchTo(undefined);
  }

  /** Shows a stored session. */
  async openSession(id: string): Promise<void> {
    await this.switchTo(id);
  }

  private async switchTo(id: string | undefined): Promise<void> {
    const previous = this.session;
    this.generation++;
    this.rewound = undefined;
    this.approvals.denyAll();
    this.session = undefined;
    this.stream = undefined;
    this.following?.follower.stop();
    this.following = undefined;
    // A session that cannot close cleanly (its folder removed, say) must not keep the window on it.
    await previous?.close().catch((err: unknown) => this.logger.warn(`closing session ${previous.id}: ${(err as Error).message}`));
    if (id) await this.openOrFollow(id);
    void this.memory.update(SHOWN_KEY, id);
    this.resync();
    this.changed.fire();
  }

  /**
   * Shows again the session this window showed before a reload. The window that held it may
   * still be letting go of its writer lease, so a busy session is retried for a few seconds.
   */
  async restore(): Promise<void> {
    const id = this.memory.get<string>(SHOWN_KEY);
    if (!id || this.currentId || !this.store) return;
    const generation = this.generation;
    try {
      await this.openOrFollow(id, 5_000, () => generation !== this.generation);
    } catch (err) {
      this.logger.info(`could not show session ${id} again: ${(err as Error).message}`);
      void this.memory.update(SHOWN_KEY, undefined);
      return;
    }
    if (generation !== this.generation) return; // the user moved on meanwhile
    this.resync();
    this.changed.fire();
  }

  /** The current session's title, model and token count, for the status bar. */
  status(): { title: string; model: string; tokens: number } | undefined {
    const id = this.currentId;
    if (!id || !this.store) return undefined;
    let state: SessionState;
    try {
      state = this.store.get(id);
    } catch {
      return undefined; // the folder went away; info() says so in the log
    }
    const u = this.store.index.sessionUsage(id).own; // as the Chat view's usage line counts it
    return { title: shownTitle(state), model: state.model?.id ?? '', tokens: u.input + u.output + u.cacheRead + u.cacheWrite };
  }

  /**
   * Opens `id` for writing here. A lease whose holder is gone (or silent past its expiry) is taken
   * over on opening, as every process does; a live holder's is waited for up to `waitMs` (a window
   * letting go), then the session is followed read-only. `abandoned` stops the waiting.
   */
  private async openOrFollow(id: string, waitMs = 0, abandoned = () => false): Promise<void> {
    const deadline = Date.now() + waitMs;
    const keep = async (session: Session) => {
      if (abandoned()) await session.close(); // another session was chosen while this one opened
      else this.session = session;
    };
    for (;;) {
      try {
        return await keep(await this.open(id));
      } catch (err) {
        if (err instanceof SessionElsewhereError) return this.follow(id, elsewhereNote(err));
        if (!(err instanceof SessionBusyError)) throw err;
        if (Date.now() >= deadline || abandoned()) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    if (!abandoned()) this.follow(id);
  }

  /** Shows a session read-only, following its log live: another process writes it, or it belongs to another folder (`reason`). */
  private follow(id: string, reason?: string): void {
    const generation = this.generation;
    const follower = new LogFollower(this.store!.layout.agentLog(this.store!.locate(id)), () => {
      if (generation === this.generation) this.resync();
    }).start();
    this.following = { id, follower, ...(reason ? { reason } : {}) };
    this.logger.info(`session ${id} ${reason ? 'belongs to another folder' : 'is written by another process'}; following it read-only`);
  }

  private async open(id: string | undefined): Promise<Session> {
    // The generation this session belongs to is the one it was asked for in.
    const generation = this.generation;
    await chooseModel(); // a configuration problem is reported before a session is created
    const workspaceDirs = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    if (workspaceDirs.length === 0) throw new Error('Open a folder first: Braid works on the files of a workspace folder.');
    const promptHook = readPromptHook();
    const session = await Session.open({
      store: this.store!,
      workspaceDirs,
      model: chooseModel,
      streamFn: vscodeAwareStream,
      apiKey: async (provider) => resolveApiKey(provider, process.env, await this.secrets.get(secretKey(provider))),
      systemPrompt: systemPrompt(workspaceDirs[0]!),
      approvals: this.approvals,
      approvalPolicy: readApprovalPolicy(),
      compaction: readCompactionSettings(),
      trusted: () => vscode.workspace.isTrusted,
      logger: this.logger,
      ...(promptHook ? { promptHook } : {}),
    }, id);
    const stream = new SessionStream(session.id, () => this.info(session.id), (frames) => {
      if (generation === this.generation) this.post({ type: 'frames', sessionId: session.id, frames });
    });
    if (generation === this.generation) this.stream = stream;
    session.onEvent((event) => {
      if (generation !== this.generation) return;
      stream.onEvent(event);
      if (event.type === 'turn-end' || event.type === 'status') this.changed.fire();
    });
    if (!id) stream.push({ kind: 'session-updated', info: this.info(session.id) });
    return session;
  }

  dispose(): void {
    this.changed.dispose();
    this.generation++;
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
