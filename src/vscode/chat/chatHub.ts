import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import { errorMessage } from '../../core/errors';
import { userMessageId } from '../../core/ids';
import type { Logger } from '../../core/logger';
import type { SessionStore } from '../../core/store/sessionStore';
import { discoverCommands, typedPrompt, type CustomCommand } from '../../core/setup/skills/commands';
import { setupPlaces } from '../../core/setup/skills/places';
import { userConfigDir } from '../../core/setup/settingsFiles';
import type { TurnMode } from '../../core/wire/turnMode';
import {
  PROTOCOL_VERSION,
  type AttachmentRef,
  type CustomCommandItem,
  type HostToWebview,
  type MessageAction,
  type ModelInfo,
  type CommandMessage,
  type PageCommand,
  type SlashCommand,
  type WebviewToHost,
} from '../../protocol/messages';
import { dispatch, type MessageHandlers } from '../../protocol/handlers';
import { reported } from '../reported';
import { Disposable, disposeAll } from '../disposable';
import { chooseModel } from '../lm/chooseModel';
import { openChangeDiff, openToolDiff, registerCheckpointDocuments } from './toolDiffEditor';
import { listModelChoices, switchModel } from '../model/modelPicker';
import { affectsModelSettings, settledModelSettings } from '../settings';
import { ChatPage, type ChatSurface } from './chatPage';
import { showChangesUndone } from './changesUndo';
import { CurrentSession } from './currentSession';
import { ChatViewProvider } from './chatViewProvider';
import { vscodeChatHost } from './vscodeChatHost';
import { SetupWatcher } from '../setup/setupWatcher';
import { WindowMcp } from '../setup/windowMcp';
import { Mentions } from './mentions';
import { McpPromptMenu } from './mcpPromptMenu';
import { mentionedResources, resourceMentions } from '../../core/setup/mcp/mcpMentions';
import type { Attachment } from '../../core/format/attachment';

/** The VS Code command each slash command (and each of the page's controls) runs. */
const COMMANDS: Record<Exclude<SlashCommand, 'btw' | 'goal'> | PageCommand, string> = {
  new: 'braid.newSession',
  sessions: 'braid.openSession',
  fork: 'braid.forkSession',
  rewind: 'braid.rewind',
  edit: 'braid.editLastPrompt',
  compact: 'braid.compactSession',
  remember: 'braid.updateSessionMemory',
  memory: 'braid.showSessionMemory',
  history: 'braid.promptHistory',
  model: 'braid.selectModel',
  usage: 'braid.showUsage',
  trust: 'workbench.trust.manage',
  undoRewind: 'braid.undoRewind',
};

/** What a slash command's text becomes for its VS Code command: /sessions' is the search the quick pick opens with. */
function commandArgs(message: CommandMessage): unknown[] {
  if (!message.arg) return [];
  return message.name === 'sessions' ? [{ query: message.arg }] : [message.arg];
}

/** Who handles the page's actions on user messages (rewind, fork, edit & resend). */
export type MessageActionHandler = (action: MessageAction, sessionId: string, messageId: string) => Promise<void>;

/**
 * The window's chat: one current session (CurrentSession) shown on every Chat page at once, the
 * side bar's view and an editor tab alike. Frames go to every page that finished its handshake;
 * what one page asked for (its snapshot after `ready`, missed frames, an older page, a side
 * question's answer) goes to that page. A page that comes back says `ready` and gets a snapshot
 * (the log's newest page plus the live part of a running turn), then frames (docs/reference.md, Stream frames).
 */
export class ChatHub extends Disposable {
  readonly current: CurrentSession;
  private readonly pages = new Set<ChatPage>();
  /** The page the user last worked in: where a prefilled prompt goes and what reveal() shows. */
  private lastActive: ChatPage | undefined;
  /** The page each side question was asked from. */
  private readonly sideAskers = new Map<string, ChatPage>();
  private actionHandler: MessageActionHandler | undefined;
  private revealer: ((sessionId: string) => void) | undefined;
  private restored = false;
  /** The model the pages show; looked up once and again only when settings or VS Code's models change. */
  private model: Promise<ModelInfo> | undefined;
  /** The window's setup (MCP servers, hooks, rules, skills), read again when it changes. */
  readonly setup: SetupWatcher;
  /** The `@` list's search and the reading of the chips a prompt carries. */
  private readonly mentions: Mentions;
  /** The window's MCP servers (one process per server per window). */
  private readonly mcp: WindowMcp;
  /** The MCP servers' prompts in the `/` menu. */
  private readonly mcpPrompts: McpPromptMenu;
  private readonly modelChange = this._register(new vscode.EventEmitter<void>());
  /** Fires when the model the pages show changed (settings, VS Code's models). */
  readonly onDidChangeModel = this.modelChange.event;
  /** Chips added while no page was ready, for the first page that says `ready`. */
  private waitingChips: AttachmentRef[] = [];
  /** The mode each session's composer was set to in this window ('' for a new session): one session, one mode on every page. */
  private readonly chosenModes = new Map<string, TurnMode>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly store: SessionStore | undefined,
    private readonly secrets: vscode.SecretStorage,
    memory: vscode.Memento,
    private readonly logger: Logger,
  ) {
    super();
    // The pages stop listening first; their views and panels are VS Code's to dispose of.
    this._register({
      dispose: () => {
        const pages = [...this.pages];
        this.pages.clear();
        disposeAll(pages);
      },
    });
    if (store) this._register(registerCheckpointDocuments(store));
    this.setup = this._register(new SetupWatcher(logger));
    const mcp = (this.mcp = this._register(new WindowMcp(this.setup, logger)));
    this.mentions = this._register(new Mentions(() => mcp.current()));
    this.mcpPrompts = new McpPromptMenu(() => mcp.current(), logger);
    // Once the `/` menu was opened, a change of the setup (a server added, approved, trust granted) lists the prompts again.
    this._register(this.setup.onDidChange(() => this.mcpPrompts.wanted && void this.listCommands()));
    this.current = this._register(
      new CurrentSession(
        store,
        vscodeChatHost(
          secrets,
          memory,
          {
            post: (m) => this.post(m),
            resync: () => void this.snapshot(),
            reveal: () => {
              if (![...this.pages].some((p) => p.surface.visible())) void this.reveal();
            },
          },
          this.setup,
          mcp,
        ),
        logger,
      ),
    );
    // A pick writes up to four settings, one event each: the pages hear of the model they end in.
    let settle: NodeJS.Timeout | undefined;
    const modelChanged = () => {
      this.model = undefined;
      clearTimeout(settle);
      settle = setTimeout(() => {
        this.model = undefined; // a snapshot meanwhile may have looked up a half-written choice
        void this.modelInfo().then((model) => {
          this.post({ type: 'modelChanged', model });
          this.modelChange.fire();
        });
      }, 100);
    };
    this._register({ dispose: () => clearTimeout(settle) });
    this._register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (affectsModelSettings(event)) modelChanged();
      }),
    );
    // Models VS Code offers come and go (an extension activates, Copilot signs in).
    this._register(vscode.lm.onDidChangeChatModels(modelChanged));
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => void this.snapshot()));
  }

  /** Hosts a Chat page on a webview view or panel; it lives until the surface is disposed. */
  attach(surface: ChatSurface): ChatPage {
    const page = new ChatPage(
      surface,
      this.extensionUri,
      this.logger,
      (p, message) => this.receive(p, message),
      (p) => {
        this.pages.delete(p);
        if (this.lastActive === p) this.lastActive = undefined;
        for (const [id, asker] of this.sideAskers) if (asker === p) this.sideAskers.delete(id);
      },
    );
    this.pages.add(page);
    return page;
  }

  /** Marks a page as the one the user works in (an editor tab that became active). */
  activate(page: ChatPage): void {
    if (this.pages.has(page)) this.lastActive = page;
  }

  setMessageActionHandler(handler: MessageActionHandler): void {
    this.actionHandler = handler;
  }

  /** Who shows a session's row in the Sessions tree (a side question kept as a fork). */
  setSessionRevealer(reveal: (sessionId: string) => void): void {
    this.revealer = reveal;
  }

  /**
   * Puts text in the chat input (edit & resend after a rewind) of the page the user works in.
   * With `replaces` (an undone rewind taking its prompt back out) every page is told, and each
   * changes its input only where it still holds exactly that text.
   */
  prefill(text: string, replaces?: string): void {
    if (replaces !== undefined) return this.post({ type: 'prefill', text, replaces });
    const page = this.preferredPage();
    if (page?.isReady) page.post({ type: 'prefill', text });
    else this.post({ type: 'prefill', text });
  }

  /**
   * Braid: Add Selection to Chat: the active editor's selection becomes a chip in the composer of
   * the page the user works in, which is brought to the front.
   */
  async addSelection(): Promise<void> {
    const item = this.mentions.selection(vscode.window.activeTextEditor);
    if (typeof item === 'string') {
      void vscode.window.showInformationMessage(item);
      return;
    }
    await this.reveal();
    const page = this.preferredPage();
    if (page?.isReady) page.post({ type: 'attach', item });
    else this.waitingChips.push(item); // the page just revealed gets it after its handshake
  }

  /** Asks a side question and shows it in a page's overlay (the palette's Side Question). */
  async sideQuestion(question: string): Promise<void> {
    await this.reveal();
    const id = `side-${randomUUID()}`;
    const page = this.preferredPage();
    if (page) this.sideAskers.set(id, page);
    await this.current.askSide(id, question);
  }

  /**
   * Brings the chat to the front and focuses it: a page on screen (the one the user last worked
   * in first), else the page they last worked in, else the side bar's Chat view.
   */
  async reveal(): Promise<void> {
    const page = this.preferredPage();
    if (page) page.surface.reveal();
    else await vscode.commands.executeCommand(`${ChatViewProvider.viewId}.focus`);
  }

  private preferredPage(): ChatPage | undefined {
    const pages = [...this.pages];
    const onScreen = pages.filter((p) => p.surface.visible());
    if (this.lastActive && onScreen.includes(this.lastActive)) return this.lastActive;
    return onScreen[0] ?? this.lastActive ?? pages.find((p) => p.surface.place === 'view');
  }

  private receive(page: ChatPage, message: WebviewToHost): void {
    // What the page does by itself (its handshake, catching up, paging) says nothing about where the user is.
    if (message.type !== 'ready' && message.type !== 'framesAfter' && message.type !== 'loadOlder') this.lastActive = page;
    void reported(this.logger, `chat: ${message.type}`, () => dispatch(this.handlers, message, page));
  }

  /** What the host does with each message of the page (the page that sent it is the second argument). */
  private readonly handlers: MessageHandlers<WebviewToHost, [ChatPage], Promise<void> | void> = {
    ready: async (message, page) => {
      if (message.protocol !== PROTOCOL_VERSION) this.logger.warn(`webview speaks protocol ${message.protocol}, host ${PROTOCOL_VERSION}`);
      this.logger.info(`chat page ready (${page.surface.place})`);
      await this.snapshot(page);
      for (const item of this.waitingChips.splice(0)) page.post({ type: 'attach', item });
      if (!this.restored) {
        this.restored = true;
        await this.current.restore(); // after a window reload: the session shown before
      }
    },
    framesAfter: async (message, page) => {
      const frames = this.current.framesAfter(message.after);
      if (frames && this.current.currentId) page.post({ type: 'frames', sessionId: this.current.currentId, frames });
      else await this.snapshot(page);
    },
    prompt: async (message) => {
      const refs = message.attachments;
      const mentioned = resourceMentions(message.text).length > 0;
      await this.current.prompt(message.requestId, message.text, message.steer === true, {
        ...(message.mode ? { mode: message.mode } : {}),
        ...(refs || mentioned ? { attachments: () => this.attachments(refs ?? [], message.text) } : {}),
        ...(message.command ? { expand: (text: string) => this.expand(text) } : {}),
        ...(message.goal ? { goal: true } : {}),
      });
    },
    listCommands: (_message, page) => this.listCommands(page),
    chooseMode: (message) => {
      this.chosenModes.set(this.current.currentId ?? '', message.mode);
      this.post({ type: 'modeChosen', mode: message.mode });
    },
    mentionQuery: async (message, page) => page.post({ type: 'mentionResults', id: message.id, items: await this.mentions.find(message.query) }),
    cancel: () => this.current.cancel(),
    queueAction: (message) => this.current.queueAction(message.action, message.promptId),
    approval: (message) => this.current.approvals.answer(message.approvalId, message.decision),
    loadOlder: (message, page) => {
      const older = this.current.olderPage(message.sessionId, message.before, message.limit);
      if (older) page.post(older);
    },
    command: async (message) => {
      await vscode.commands.executeCommand(COMMANDS[message.name], ...commandArgs(message));
    },
    listModels: async (_message, page) => page.post({ type: 'modelChoices', choices: await listModelChoices(this.secrets) }),
    selectModel: (message) => switchModel(this.secrets, message.choice),
    sideQuestion: (message, page) => {
      this.sideAskers.set(message.id, page);
      return this.current.askSide(message.id, message.text);
    },
    keepSide: async (message) => {
      const forkId = await this.current.keepSide(message.id);
      if (!forkId) return;
      this.revealer?.(forkId);
      void vscode.window
        .showInformationMessage('Kept the side question as a fork of this session.', 'Open Fork')
        .then((c) => c && vscode.commands.executeCommand('braid.openSession', forkId));
    },
    openDiff: async (message) => {
      const sessionId = this.current.currentId;
      if (sessionId && this.store) await openToolDiff(this.store, sessionId, message.toolCallId);
    },
    changes: async (message) => {
      const sessionId = this.current.currentId;
      if (!sessionId || !this.store) return;
      if (message.action === 'diff') {
        const file = this.current.changedFile(message.keys[0]!, message.scope);
        if (file) await openChangeDiff(this.store, sessionId, file, message.scope);
        return;
      }
      const result = await this.current.changeFiles(message.action, message.scope, message.keys);
      if (message.action === 'undo') showChangesUndone(this.current, sessionId, result, this.logger);
    },
    messageAction: async (message) => {
      const sessionId = this.current.currentId;
      if (!sessionId || !this.actionHandler) return;
      // A prompt sent from a page is named by its request id, which was its message key.
      const messageId = message.messageId ?? userMessageId(sessionId, message.requestId!);
      await this.actionHandler(message.action, sessionId, messageId);
    },
  };

  /** Sends everything a page shows, from scratch: to one page, or to all of them. */
  private async snapshot(only?: ChatPage): Promise<void> {
    const pages = only ? [only] : [...this.pages];
    if (!pages.some((p) => p.isReady)) return;
    const model = await this.modelInfo();
    const { session, live, cursor, promptHistory } = this.current.view();
    const mode = this.chosenModes.get(session?.info.id ?? '');
    const commandItems = this.commandItems();
    for (const page of pages) {
      page.post({
        type: 'snapshot',
        model,
        trusted: vscode.workspace.isTrusted,
        session,
        live,
        cursor,
        promptHistory,
        ...(mode ? { mode } : {}),
        commands: commandItems,
      });
    }
  }

  /** The `/` menu's custom commands, then the MCP servers' prompts listed so far. */
  private commandItems(): CustomCommandItem[] {
    const custom = this.customCommands().map((c) => ({
      name: c.name,
      description: c.description,
      origin: c.origin,
      ...(c.argumentHint ? { argumentHint: c.argumentHint } : {}),
    }));
    return [...custom, ...this.mcpPrompts.known()];
  }

  /** Lists the MCP servers' prompts (starting the servers that may run) and gives the `/` menu to `page`, or to every page. */
  private async listCommands(page?: ChatPage): Promise<void> {
    await this.mcpPrompts.list();
    const message: HostToWebview = { type: 'commands', commands: this.commandItems() };
    if (page) page.post(message);
    else this.post(message);
  }

  /** What a `/name args` line sends: an MCP server's prompt, or a custom command's expansion. */
  private expand(text: string): string | Promise<string> {
    if (text.trim().startsWith('/mcp__')) return this.mcpPrompts.expand(text);
    return typedPrompt(text, this.customCommands());
  }

  /** The chips' contents, then the MCP resources the text names as `@server:uri` (one a chip also names is read once). */
  private async attachments(refs: readonly AttachmentRef[], text: string): Promise<Attachment[]> {
    const chips = await this.mentions.resolve(refs);
    const chipped = new Set(chips.map((c) => c.uri).filter((u) => u !== undefined));
    const typed = await mentionedResources(this.mcp.current(), text);
    return [...chips, ...typed.filter((a) => !chipped.has(a.uri!))];
  }

  /** The custom slash commands of this window's workspace and of the user (docs/setup-skills-commands.md). */
  private customCommands(): CustomCommand[] {
    const dir = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (!dir) return [];
    return [...discoverCommands(setupPlaces(dir, vscode.workspace.isTrusted, userConfigDir())).items];
  }

  /** The model the pages show: the one the next prompt uses. */
  modelInfo(): Promise<ModelInfo> {
    this.model ??= this.lookUpModel();
    return this.model;
  }

  private async lookUpModel(): Promise<ModelInfo> {
    const settings = await settledModelSettings();
    try {
      const { model, limits } = await chooseModel();
      if (limits)
        this.logger.info(
          `model ${model.provider}/${model.id}: context window ${limits.contextWindow} tokens (${limits.contextFrom}), answers up to ${limits.maxOutputTokens} (${limits.outputFrom})`,
        );
      return { provider: model.provider, id: model.id, demo: settings.demo, images: model.input.includes('image'), ...(limits ? { limits } : {}) };
    } catch (err) {
      return { provider: settings.provider, id: settings.model, demo: settings.demo, problem: errorMessage(err) };
    }
  }

  /** Every page's frames, model changes; a side question's answer goes to the page that asked. */
  private post(message: HostToWebview): void {
    const asker = message.type === 'sideAnswer' ? this.sideAskers.get(message.id) : undefined;
    if (asker && message.type === 'sideAnswer') {
      asker.post(message);
      if (message.state === 'failed' || message.state === 'kept') this.sideAskers.delete(message.id);
      return;
    }
    for (const page of this.pages) page.post(message);
  }
}
