/**
 * The typed protocol between the extension host and the Chat webview. Both sides import these
 * types; names say the direction: `WebviewToHost`, `HostToWebview`. Each message is declared here
 * once; the rest is found from its type and checked by the compiler: the check of its fields in
 * `WEBVIEW_MESSAGES` (validate.ts; the host drops what fails it or is not there), and its handler
 * in the receiving side's `MessageHandlers` map (handlers.ts): ChatHub's for `WebviewToHost`,
 * the page's (media/src/main.ts) for `HostToWebview`.
 */
import type { ApprovalChoice, AttachmentKind, ChangeScope, SessionInfo, StreamFrame, TranscriptEntry } from './frames';
import type { TurnMode } from './modes';

export type {
  ApprovalChoice,
  AttachmentChip,
  AttachmentKind,
  LiveEvent,
  QueuedChip,
  SessionInfo,
  StreamFrame,
  ToolEntry,
  TranscriptEntry,
  UsageInfo,
} from './frames';

/** Bumped when a message changes shape; the `ready` handshake carries it. */
export const PROTOCOL_VERSION = 9;

/** What the webview shows about the model that answers. */
export interface ModelInfo {
  /** Provider id, e.g. `openai-compatible`, `anthropic`, `vscode-lm`. Empty when none is set. */
  readonly provider: string;
  /** Model id at that provider. */
  readonly id: string;
  /** True for the scripted demo model that `npm start` runs when no provider is configured. */
  readonly demo: boolean;
  /** Set when the configuration cannot be used; a one-sentence reason the user can act on. */
  readonly problem?: string;
  /** Whether the model reads images (a pasted image is refused, saying so, when it does not). */
  readonly images?: boolean;
  /** The context window and answer limit in tokens, and where each came from (the server, a setting, ...). */
  readonly limits?: { readonly contextWindow: number; readonly contextFrom: string; readonly maxOutputTokens: number; readonly outputFrom: string };
}

/**
 * One line of the model picker (the header dropdown and Braid: Select Model list the same lines):
 * a model to switch to, or a provider whose models are chosen in a second step.
 */
export interface ModelChoiceItem {
  readonly kind: 'model' | 'provider';
  /** The current model; models VS Code offers; providers with an API key; the other providers. */
  readonly group: 'current' | 'vscode' | 'keyed' | 'other';
  readonly provider: string;
  /** The model id, for a `model` line. */
  readonly model?: string;
  readonly label: string;
  readonly description: string;
}

/** The heading above each group of the model picker's lines. */
export const MODEL_GROUP_TITLES: Record<ModelChoiceItem['group'], string> = {
  current: 'Current',
  vscode: 'Models in VS Code',
  keyed: 'Providers with an API key',
  other: 'Other providers',
};

/** What the page sends back when the user picks a line of the model picker. */
export interface ModelPick {
  readonly kind: 'model' | 'provider';
  readonly provider: string;
  readonly model?: string;
}

/** Where the page before a shown page ends in the log; opaque to the page, checked by the host. */
export interface PageCursor {
  readonly offset: number;
  /** The lowest rewind seen after `offset`; null when none (JSON has no Infinity). */
  readonly minRewind: number | null;
}

/**
 * The turn a search result opened the session at (Braid: Open Session..., `/sessions <query>`), or
 * the turn that wrote a line (the editor's blame hover and CodeLens): the page brings it on screen
 * once (paging back and opening its request as needed) and marks the searched words in it, until
 * a prompt is sent or another session is opened.
 */
export interface TurnReveal {
  /** Which opening this is: a page brings a reveal on screen once, not again on every snapshot. */
  readonly id: string;
  readonly turn: number;
  /** The keys of the turn's first and last entries (a turn's entries are in a row). */
  readonly from: string;
  readonly to: string;
  /** The words searched, lowercased, as the index splits them: each is marked where a word starts with it (a CJK word anywhere). None: nothing is marked. */
  readonly words: readonly string[];
}

/** The most words a reveal marks, and the longest. */
export const MAX_REVEAL_WORDS = 16;
export const MAX_REVEAL_WORD = 200;

/** The session the Chat view shows: its newest page of transcript and what is live in it. */
export interface SessionView {
  readonly info: SessionInfo;
  readonly entries: readonly TranscriptEntry[];
  /** Pass back in `loadOlder` for the page before; absent when the page reaches the start. */
  readonly before?: PageCursor;
  /** Another window writes this session: shown and followed live, but prompts cannot be sent here. */
  readonly readOnly?: boolean;
  /** Why it is read-only, when not because another window writes it (it belongs to another folder). */
  readonly readOnlyReason?: string;
  /** The page's request id of the turn running now, if one runs. */
  readonly activeRequest?: string;
  /** Lines of the log read for this page that could not be read (a crash mid-write, or damage) and were skipped. */
  readonly damagedLines?: number;
  /** Set while the rewind this window just made can be undone: what it did, shown beside an Undo button. */
  readonly undoableRewind?: string;
  /** The next-prompt suggestion offered after the last turn, while it stands (see SuggestionMessage). */
  readonly suggestion?: string;
  /** The turn a search result opened the session at, while it stands. */
  readonly reveal?: TurnReveal;
}

/** What a prompt can carry besides its text: a chip of the composer, named; the host reads its content when the prompt arrives. */
export interface AttachmentRef {
  readonly kind: AttachmentKind;
  readonly label: string;
  /** Workspace-relative path of a file, selection, folder or editor ('/' separated). */
  readonly path?: string;
  /** First and last line of a selection (1-based). */
  readonly lines?: readonly [number, number];
  /** An MCP server's resource, as `server:uri`. */
  readonly uri?: string;
  /** A pasted or dropped image: its type and its bytes in base64. */
  readonly image?: { readonly mimeType: string; readonly data: string };
}

/** The image types the composer takes (what the providers read). */
export const IMAGE_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];
/** The largest image one chip carries (bytes). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** One line of the `@` list: something to attach, and a line saying where it is. */
export interface MentionItem extends AttachmentRef {
  readonly detail: string;
}

/** The most attachments one prompt carries. */
export const MAX_ATTACHMENTS = 20;
/** The longest `@` query the host searches for. */
export const MAX_MENTION_QUERY = 200;

// ---- webview -> host -------------------------------------------------------------------------

/** The webview has loaded its script and listens; the host answers with a `snapshot`. */
export interface ReadyMessage {
  readonly type: 'ready';
  readonly protocol: number;
}

/** The page saw a gap in the frame cursors; the host sends what followed `after`, or a snapshot. */
export interface FramesAfterMessage {
  readonly type: 'framesAfter';
  readonly after: number;
}

/**
 * The user sent a prompt. `requestId` is the page's id for it (its message key, so a resend after a
 * reload cannot duplicate it). While a turn runs it is queued, or injected with `steer`.
 */
export interface PromptMessage {
  readonly type: 'prompt';
  readonly requestId: string;
  readonly text: string;
  readonly steer?: boolean;
  /** What the turn may do; Agent when absent. */
  readonly mode?: TurnMode;
  /** The composer's chips; a prompt with any is queued while a turn runs, never steered. */
  readonly attachments?: readonly AttachmentRef[];
  /** The text is `/name args` of a custom command or an MCP server's prompt: the host sends its expansion. */
  readonly command?: true;
  /** `/goal <text>`: the text is a goal, worked toward turn after turn until done (docs/ui.md, Chat view). */
  readonly goal?: true;
}

/** A custom slash command for the `/` menu (docs/setup-skills-commands.md). */
export interface CustomCommandItem {
  readonly name: string;
  readonly description: string;
  /** Where its file is: the user's folders or the project's. */
  readonly origin: 'user' | 'project';
  readonly argumentHint?: string;
  /** An MCP server's prompt (`mcp__<server>__<prompt>`): the server it is from. */
  readonly server?: string;
}

/** The user typed `@query` in the composer: the host answers with `mentionResults` of the same id. */
export interface MentionQueryMessage {
  readonly type: 'mentionQuery';
  readonly id: number;
  readonly query: string;
}

/** The user pressed Stop: the turn running now ends. */
export interface CancelMessage {
  readonly type: 'cancel';
}

/** What the queue's buttons do: steer or cancel one prompt, resume or discard a paused queue. */
export const QUEUE_ACTIONS = ['steer', 'cancel', 'resume', 'discard'] as const;
export type QueueAction = (typeof QUEUE_ACTIONS)[number];

/** Steer a queued prompt into the running turn, or cancel it; resume or discard a paused queue. */
export interface QueueActionMessage {
  readonly type: 'queueAction';
  readonly action: QueueAction;
  readonly promptId: string;
}

/** The user's answer to an approval prompt shown in the chat. */
export interface ApprovalMessage {
  readonly type: 'approval';
  readonly approvalId: string;
  readonly decision: ApprovalChoice;
}

/**
 * An action on one of the user's messages: rewind to before it, fork keeping its turn, or edit
 * and resend it. Stored messages are named by `messageId`; ones sent from this page by the
 * `requestId` they were sent with.
 */
export interface MessageActionMessage {
  readonly type: 'messageAction';
  readonly action: MessageAction;
  readonly messageId?: string;
  readonly requestId?: string;
}

/** What a prompt's actions ask: rewind to it, fork up to its turn (into a git worktree with `forkWorktree`), edit and resend it. */
export const MESSAGE_ACTIONS = ['rewind', 'fork', 'forkWorktree', 'edit'] as const;
export type MessageAction = (typeof MESSAGE_ACTIONS)[number];

/** The user asked to see a tool call's change in VS Code's diff editor (its card's Open Diff). */
export interface OpenDiffMessage {
  readonly type: 'openDiff';
  readonly toolCallId: string;
}

/**
 * The Changes list: Keep or Undo the files named (by their keys; every listed file with 'all') in
 * a scope, or open one file's change in VS Code's diff editor.
 */
export interface ChangesMessage {
  readonly type: 'changes';
  readonly action: 'keep' | 'undo' | 'diff';
  readonly scope: ChangeScope;
  readonly keys: readonly string[] | 'all';
}

/** The most keys one `changes` message names. */
export const MAX_CHANGE_KEYS = 10_000;

/** The most messages one older page holds; a `loadOlder` asking for more is dropped. */
export const MAX_OLDER_PAGE = 2560;

/** The page scrolled to the top of what it has: the page of messages before `before`. */
export interface LoadOlderMessage {
  readonly type: 'loadOlder';
  readonly sessionId: string;
  readonly before: PageCursor;
  /** How many messages, 1 to MAX_OLDER_PAGE: the page asks for more while the user pages back fast. */
  readonly limit: number;
}

/** Slash commands of the composer: most run a VS Code command; /btw asks a side question, /goal sends a prompt as a goal. */
export const SLASH_COMMANDS = [
  'new',
  'sessions',
  'fork',
  'rewind',
  'edit',
  'btw',
  'goal',
  'compact',
  'remember',
  'memory',
  'history',
  'model',
  'usage',
] as const;
export type SlashCommand = (typeof SLASH_COMMANDS)[number];

/** Commands the page's own controls run: Manage Workspace Trust, and Undo after a rewind. */
export const PAGE_COMMANDS = ['trust', 'undoRewind'] as const;
export type PageCommand = (typeof PAGE_COMMANDS)[number];

/** A slash command, or a control of the page (the trust button, Undo after a rewind) that runs one. */
export interface CommandMessage {
  readonly type: 'command';
  readonly name: Exclude<SlashCommand, 'btw' | 'goal'> | PageCommand;
  /** What follows the command (the focus of /compact, the search of /sessions). */
  readonly arg?: string;
}

/** The user opened the `/` menu: the host answers with `commands` (the MCP servers' prompts are listed then, not before). */
export interface ListCommandsMessage {
  readonly type: 'listCommands';
}

/** The user opened the header's model dropdown: the host answers with `modelChoices`. */
export interface ListModelsMessage {
  readonly type: 'listModels';
}

/**
 * The user picked a line of the model dropdown. The host checks it is one it offers; a model is
 * used from the next turn on, a provider's model is chosen next in a quick pick.
 */
export interface SelectModelMessage {
  readonly type: 'selectModel';
  readonly choice: ModelPick;
}

/** A side question (/btw): answered in an overlay, never part of the transcript. */
export interface SideQuestionMessage {
  readonly type: 'sideQuestion';
  readonly id: string;
  readonly text: string;
}

/** Keep an answered side question as a fork of the session. */
export interface KeepSideMessage {
  readonly type: 'keepSide';
  readonly id: string;
}

/**
 * The user picked a mode in the composer: it is the session's, so every page showing the session
 * shows it (the host answers all of them with `modeChosen`).
 */
export interface ChooseModeMessage {
  readonly type: 'chooseMode';
  readonly mode: TurnMode;
}

/** Messages the webview sends to the host. */
export type WebviewToHost =
  | ReadyMessage
  | FramesAfterMessage
  | PromptMessage
  | CancelMessage
  | QueueActionMessage
  | ApprovalMessage
  | MessageActionMessage
  | OpenDiffMessage
  | ChangesMessage
  | LoadOlderMessage
  | CommandMessage
  | ListModelsMessage
  | ListCommandsMessage
  | SelectModelMessage
  | SideQuestionMessage
  | KeepSideMessage
  | MentionQueryMessage
  | ChooseModeMessage;

// ---- host -> webview -------------------------------------------------------------------------

/**
 * Everything the page renders, from scratch: sent after `ready`, when the Chat view switches
 * session, after a rewind, and when a cursor is gone. `live` are the frames of the running turn
 * not yet in the log; `cursor` is the last frame they include.
 */
export interface SnapshotMessage {
  readonly type: 'snapshot';
  readonly model: ModelInfo;
  /** False in an untrusted workspace: the chat works, tools are read-only. */
  readonly trusted: boolean;
  /** The session shown, or null before the first prompt of a new one. */
  readonly session: SessionView | null;
  readonly live: readonly StreamFrame[];
  readonly cursor: number;
  /** Earlier prompts for Up/Down in the input, newest first: this session's, then the workspace's. */
  readonly promptHistory: readonly string[];
  /** The mode chosen for the session shown, when a page of this window chose one (else the page takes its newest prompt's). */
  readonly mode?: TurnMode;
  /** The custom slash commands (and the MCP servers' prompts once listed), for the `/` menu after the built-in ones. */
  readonly commands?: readonly CustomCommandItem[];
}

/** The `/` menu's custom commands and MCP servers' prompts, after a `listCommands` or a change of the setup. */
export interface CommandsMessage {
  readonly type: 'commands';
  readonly commands: readonly CustomCommandItem[];
}

/** Frames of the current session, in cursor order. */
export interface FramesMessage {
  readonly type: 'frames';
  readonly sessionId: string;
  readonly frames: readonly StreamFrame[];
}

/** The page of entries before the cursor the page asked with. */
export interface OlderPageMessage {
  readonly type: 'olderPage';
  readonly sessionId: string;
  readonly entries: readonly TranscriptEntry[];
  readonly before?: PageCursor;
}

/** Text for the chat input: the prompt a rewind took back, to edit and resend. */
export interface PrefillMessage {
  readonly type: 'prefill';
  readonly text: string;
  /** Only when the input still holds exactly this (an undone rewind takes its prompt back out, never the user's own edits). */
  readonly replaces?: string;
}

/** The configured model changed (settings edited, a model picked). */
export interface ModelChangedMessage {
  readonly type: 'modelChanged';
  readonly model: ModelInfo;
}

/** The model dropdown's lines, in order: the current model first. */
export interface ModelChoicesMessage {
  readonly type: 'modelChoices';
  readonly choices: readonly ModelChoiceItem[];
}

/** A side question's state: asked (from the palette), answered, or failed. */
export interface SideAnswerMessage {
  readonly type: 'sideAnswer';
  readonly id: string;
  readonly question: string;
  readonly state: 'asking' | 'answered' | 'failed' | 'kept';
  readonly text: string;
}

/** What the host found for a `mentionQuery`, best first. */
export interface MentionResultsMessage {
  readonly type: 'mentionResults';
  readonly id: number;
  readonly items: readonly MentionItem[];
}

/** A chip for the composer from outside the page (Braid: Add Selection to Chat). */
export interface AttachMessage {
  readonly type: 'attach';
  readonly item: AttachmentRef;
}

/**
 * A next-prompt suggestion for the composer of session `sessionId`, offered after its turn ended:
 * shown as ghost text in the empty input, Tab takes it. `text` null withdraws it (a prompt was
 * sent, a turn started, another session is shown).
 */
export interface SuggestionMessage {
  readonly type: 'suggestion';
  readonly sessionId: string;
  readonly text: string | null;
}

/** The mode chosen for the session shown, on one page: every page's picker takes it. */
export interface ModeChosenMessage {
  readonly type: 'modeChosen';
  readonly mode: TurnMode;
}

/** Messages the host sends to the webview. */
export type HostToWebview =
  | SnapshotMessage
  | FramesMessage
  | OlderPageMessage
  | PrefillMessage
  | ModelChangedMessage
  | ModelChoicesMessage
  | SideAnswerMessage
  | MentionResultsMessage
  | AttachMessage
  | SuggestionMessage
  | ModeChosenMessage
  | CommandsMessage;

/** Longest prompt the host accepts in one message (characters). */
export const MAX_PROMPT_CHARS = 200_000;
