import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import { resolveApiKey } from '../../core/model/apiKey';
import type { SessionEvent } from '../../core/session/events';
import { Session } from '../../core/session/session';
import { systemPrompt } from '../../core/session/systemPrompt';
import { LogFollower } from '../../core/store/logFollower';
import type { RewindResult } from '../../core/store/rewind';
import type { SessionStore } from '../../core/store/sessionStore';
import { isStale, SessionBusyError } from '../../core/store/writerLease';
import type { ApprovalUi } from '../../core/tools/approvals';
import type { HostToWebview, SessionView } from '../../protocol/messages';
import { chooseModel } from '../lm/chooseModel';
import { vscodeAwareStream } from '../lm/vscodeLmStream';
import { readApprovalPolicy } from '../settings';
import { toEntries, toolSummary } from './transcript';

/** The key under which SecretStorage keeps a provider's API key. */
export const secretKey = (provider: string) => `braid.apiKey.${provider}`;

/** Approvals as VS Code modal prompts: allow once, allow for this session, or deny. */
const modalApprovals: ApprovalUi = {
  async request(request) {
    const what = request.tool === 'bash' ? 'run a command' : 'change a file';
    const choice = await vscode.window.showWarningMessage(`Braid wants to ${what}: ${request.summary}`, { modal: true, detail: request.detail?.slice(0, 1500) }, 'Allow', 'Allow for this session');
    return choice === 'Allow' ? 'allow' : choice === 'Allow for this session' ? 'allow-session' : 'deny';
  },
};

/**
 * The session the Chat view works on. Switching to another session or a new one bumps a
 * generation counter; events of an older session are dropped (DESIGN.md 2).
 */
export class ChatSessions implements vscode.Disposable {
  private session: Session | undefined;
  /** A session another process writes, shown read-only and followed live. */
  private following: { id: string; follower: LogFollower } | undefined;
  private generation = 0;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the current session, its title or its usage changes. */
  readonly onDidChange = this.changed.event;
  private readonly requests = new Map<string, string>(); // promptId -> the page's requestId
  private activeRequest: string | undefined;

  constructor(
    private readonly store: SessionStore | undefined,
    private readonly secrets: vscode.SecretStorage,
    private readonly logger: Logger,
    private readonly post: (message: HostToWebview) => void,
  ) {}

  get currentId(): string | undefined {
    return this.session?.id ?? this.following?.id;
  }

  /** The newest page of the current session, for the page. */
  view(): SessionView | null {
    const id = this.currentId;
    if (!id || !this.store) return null;
    const page = this.store.newestPage(id);
    return { id, title: this.store.get(id).title, entries: toEntries(page.messages), hasOlder: page.before !== undefined, ...(this.following ? { readOnly: true } : {}) };
  }

  /** Runs a prompt from the page in the current session, starting a session when there is none. */
  async prompt(requestId: string, text: string): Promise<void> {
    if (!this.store) {
      this.post({ type: 'turnEnd', requestId, outcome: 'failed', error: 'The session store could not be opened; see "Braid: Show Log".' });
      return;
    }
    if (this.following) {
      this.post({ type: 'turnEnd', requestId, outcome: 'failed', error: 'Another window is writing this session, so it is read-only here. Start a New Session, or fork this one.' });
      return;
    }
    try {
      if (!this.session) {
        this.session = await this.open(undefined);
        this.post({ type: 'sessionInfo', id: this.session.id, title: this.session.title });
        this.changed.fire();
      }
      const info = await this.session.submit(text, { messageKey: requestId });
      this.requests.set(info.promptId, requestId);
      if (info.state === 'completed') this.post({ type: 'turnEnd', requestId, outcome: 'completed' });
    } catch (err) {
      this.post({ type: 'turnEnd', requestId, outcome: 'failed', error: (err as Error).message });
    }
  }

  cancel(requestId: string): void {
    for (const [promptId, r] of this.requests) if (r === requestId) void this.session?.cancel(promptId);
  }

  /** Rewinds the open session (it holds the writer lease) and shows the shortened transcript. */
  async rewind(messageId: string, files: boolean): Promise<RewindResult> {
    if (!this.session) throw new Error('no session is open for writing here');
    const result = await this.session.rewind(messageId, { files });
    this.post({ type: 'sessionChanged', session: this.view() });
    return result;
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
    this.session = undefined;
    this.following?.follower.stop();
    this.following = undefined;
    this.requests.clear();
    this.activeRequest = undefined;
    await previous?.close();
    if (id) {
      try {
        this.session = await this.open(id);
      } catch (err) {
        if (!(err instanceof SessionBusyError)) throw err;
        if (await this.confirmTakeOver(err)) this.session = await this.open(id, true);
        else this.follow(id);
      }
    }
    this.post({ type: 'sessionChanged', session: this.view() });
    this.changed.fire();
  }

  /** The current session's title, model and token count, for the status bar. */
  status(): { title: string; model: string; tokens: number } | undefined {
    const id = this.currentId;
    if (!id || !this.store) return undefined;
    const state = this.store.get(id);
    const u = state.usage;
    return { title: state.title, model: state.model?.id ?? '', tokens: u.input + u.output + u.cacheRead + u.cacheWrite };
  }

  /** A lease whose holder is gone is taken over only when the user says so. */
  private async confirmTakeOver(err: SessionBusyError): Promise<boolean> {
    if (!isStale(err.holder)) return false;
    const choice = await vscode.window.showWarningMessage('This session was being written by a window that has stopped answering. Take it over here?', { modal: true }, 'Take Over');
    return choice === 'Take Over';
  }

  /** Shows a session another process writes, following its log live. */
  private follow(id: string): void {
    const generation = this.generation;
    const follower = new LogFollower(this.store!.layout.agentLog(this.store!.locate(id)), () => {
      if (generation === this.generation) this.post({ type: 'sessionChanged', session: this.view() });
    }).start();
    this.following = { id, follower };
    this.logger.info(`session ${id} is written by another process; following it read-only`);
  }

  private async open(id: string | undefined, takeOver = false): Promise<Session> {
    await chooseModel(); // a configuration problem is reported before a session is created
    const workspaceDirs = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    if (workspaceDirs.length === 0) throw new Error('Open a folder first: Braid works on the files of a workspace folder.');
    const promptHook = vscode.workspace.getConfiguration('braid').get<string>('hooks.userPromptSubmit');
    const session = await Session.open({
      store: this.store!,
      workspaceDirs,
      model: chooseModel,
      streamFn: vscodeAwareStream,
      apiKey: async (provider) => resolveApiKey(provider, process.env, await this.secrets.get(secretKey(provider))),
      systemPrompt: systemPrompt(workspaceDirs[0]!),
      approvals: modalApprovals,
      approvalPolicy: readApprovalPolicy(),
      trusted: vscode.workspace.isTrusted,
      logger: this.logger,
      ...(promptHook ? { promptHook } : {}),
    }, id, { takeOver });
    const generation = this.generation;
    session.onEvent((event) => {
      if (generation === this.generation) this.forward(event);
    });
    return session;
  }

  private forward(event: SessionEvent): void {
    switch (event.type) {
      case 'prompt': {
        const requestId = this.requests.get(event.prompt.promptId) ?? event.prompt.messageKey;
        this.requests.set(event.prompt.promptId, requestId);
        if (event.prompt.state === 'running') this.activeRequest = requestId;
        if (event.prompt.state === 'blocked') this.post({ type: 'turnEnd', requestId, outcome: 'failed', error: `Blocked by the UserPromptSubmit hook: ${event.prompt.reason ?? ''}` });
        if (event.prompt.state === 'cancelled' && this.activeRequest !== requestId) this.post({ type: 'turnEnd', requestId, outcome: 'cancelled' });
        if (event.prompt.state === 'failed' && this.activeRequest !== requestId) this.post({ type: 'turnEnd', requestId, outcome: 'failed', error: event.prompt.reason ?? 'The prompt could not start.' });
        return;
      }
      case 'text-delta':
        if (this.activeRequest) this.post({ type: 'turnDelta', requestId: this.activeRequest, text: event.delta });
        return;
      case 'tool-start':
        if (this.activeRequest) this.post({ type: 'toolActivity', requestId: this.activeRequest, name: event.name, summary: toolSummary(event.name, event.args), phase: 'start', isError: false });
        return;
      case 'tool-end':
        if (this.activeRequest) this.post({ type: 'toolActivity', requestId: this.activeRequest, name: event.name, summary: event.text.split('\n')[0]!.slice(0, 200), phase: 'end', isError: event.isError });
        return;
      case 'turn-end':
        if (this.activeRequest) {
          const u = event.usage;
          const outcome = event.outcome === 'interrupted' ? 'failed' : event.outcome;
          this.post({ type: 'turnEnd', requestId: this.activeRequest, outcome, ...(event.error ? { error: event.error } : {}), usage: { input: u.input, output: u.output, cacheRead: u.cacheRead, costTotal: u.cost } });
          this.activeRequest = undefined;
        }
        if (this.session) this.post({ type: 'sessionInfo', id: this.session.id, title: this.session.title });
        this.changed.fire();
        return;
      default:
        return;
    }
  }

  dispose(): void {
    this.changed.dispose();
    this.generation++;
    this.following?.follower.stop();
    void this.session?.close();
    this.session = undefined;
  }
}
