/**
 * The typed protocol between the extension host and the Chat webview. Both sides import these
 * types; the host validates every incoming message with {@link parseWebviewMessage} and drops
 * what it does not recognise. Names say the direction: `WebviewToHost`, `HostToWebview`.
 */

/** Bumped when a message changes shape; the `ready` handshake carries it. */
export const PROTOCOL_VERSION = 1;

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
}

/** Token usage of one finished answer. */
export interface UsageInfo {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly costTotal: number;
}

/** One item of a transcript as the page shows it. */
export type TranscriptEntry =
  | { readonly kind: 'user'; readonly text: string; readonly messageId: string }
  | { readonly kind: 'assistant'; readonly text: string }
  | { readonly kind: 'tool'; readonly name: string; readonly summary: string; readonly isError: boolean };

/** The session the Chat view shows: its newest page of transcript. */
export interface SessionView {
  readonly id: string;
  readonly title: string;
  readonly entries: readonly TranscriptEntry[];
  /** Older messages exist before these entries. */
  readonly hasOlder: boolean;
  /** Another window writes this session: shown and followed live, but prompts cannot be sent here. */
  readonly readOnly?: boolean;
}

/** The webview has loaded its script and listens; the host answers with `init`. */
export interface ReadyMessage {
  readonly type: 'ready';
  readonly protocol: number;
}

/** The user sent a prompt. `requestId` is the webview's id for the turn it starts. */
export interface PromptMessage {
  readonly type: 'prompt';
  readonly requestId: string;
  readonly text: string;
}

/** The user pressed Stop on the running turn. */
export interface CancelMessage {
  readonly type: 'cancel';
  readonly requestId: string;
}

/**
 * An action on one of the user's messages: rewind to before it, fork keeping its turn, or edit
 * and resend it. Stored messages are named by `messageId`; ones sent from this page by the
 * `requestId` they were sent with.
 */
export interface MessageActionMessage {
  readonly type: 'messageAction';
  readonly action: 'rewind' | 'fork' | 'edit';
  readonly messageId?: string;
  readonly requestId?: string;
}

/** Messages the webview sends to the host. */
export type WebviewToHost = ReadyMessage | PromptMessage | CancelMessage | MessageActionMessage;

/** Answer to `ready`: everything the webview needs to render. */
export interface InitMessage {
  readonly type: 'init';
  readonly protocol: number;
  readonly workspaceName: string;
  readonly model: ModelInfo;
  /** The session shown, or null before the first prompt of a new one. */
  readonly session: SessionView | null;
}

/** The Chat view now shows another session (or a new, empty one). */
export interface SessionChangedMessage {
  readonly type: 'sessionChanged';
  readonly session: SessionView | null;
}

/** The current session got an id (its first prompt created it) or a new title; the transcript stays. */
export interface SessionInfoMessage {
  readonly type: 'sessionInfo';
  readonly id: string;
  readonly title: string;
}

/** Text for the chat input: the prompt a rewind took back, to edit and resend. */
export interface PrefillMessage {
  readonly type: 'prefill';
  readonly text: string;
}

/** A tool call started or ended in the turn `requestId`. */
export interface ToolActivityMessage {
  readonly type: 'toolActivity';
  readonly requestId: string;
  readonly name: string;
  readonly summary: string;
  readonly phase: 'start' | 'end';
  readonly isError: boolean;
}

/** The configured model changed (settings edited). */
export interface ModelChangedMessage {
  readonly type: 'modelChanged';
  readonly model: ModelInfo;
}

/** A piece of assistant text for the turn `requestId`. */
export interface TurnDeltaMessage {
  readonly type: 'turnDelta';
  readonly requestId: string;
  readonly text: string;
}

/** The turn `requestId` ended; every turn that started gets exactly one of these. */
export interface TurnEndMessage {
  readonly type: 'turnEnd';
  readonly requestId: string;
  readonly outcome: 'completed' | 'failed' | 'cancelled';
  readonly error?: string;
  readonly usage?: UsageInfo;
}

/** Messages the host sends to the webview. */
export type HostToWebview = InitMessage | ModelChangedMessage | SessionChangedMessage | SessionInfoMessage | PrefillMessage | TurnDeltaMessage | ToolActivityMessage | TurnEndMessage;

/** Longest prompt the host accepts in one message (characters). */
export const MAX_PROMPT_CHARS = 200_000;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 128;
}

/**
 * Validates a message from the webview. Returns the typed message, or a reason it was rejected.
 * Extra fields are dropped so nothing unvalidated travels further.
 */
export function parseWebviewMessage(raw: unknown): { ok: true; message: WebviewToHost } | { ok: false; reason: string } {
  if (!isRecord(raw)) return { ok: false, reason: 'not an object' };
  switch (raw.type) {
    case 'ready':
      if (typeof raw.protocol !== 'number' || !Number.isInteger(raw.protocol)) return { ok: false, reason: 'ready without an integer protocol' };
      return { ok: true, message: { type: 'ready', protocol: raw.protocol } };
    case 'prompt':
      if (!isId(raw.requestId)) return { ok: false, reason: 'prompt without a requestId' };
      if (typeof raw.text !== 'string' || raw.text.trim() === '') return { ok: false, reason: 'prompt without text' };
      if (raw.text.length > MAX_PROMPT_CHARS) return { ok: false, reason: `prompt longer than ${MAX_PROMPT_CHARS} characters` };
      return { ok: true, message: { type: 'prompt', requestId: raw.requestId, text: raw.text } };
    case 'cancel':
      if (!isId(raw.requestId)) return { ok: false, reason: 'cancel without a requestId' };
      return { ok: true, message: { type: 'cancel', requestId: raw.requestId } };
    case 'messageAction': {
      if (raw.action !== 'rewind' && raw.action !== 'fork' && raw.action !== 'edit') return { ok: false, reason: 'messageAction with an unknown action' };
      const hasMessage = isId(raw.messageId);
      const hasRequest = isId(raw.requestId);
      if (hasMessage === hasRequest) return { ok: false, reason: 'messageAction needs exactly one of messageId and requestId' };
      return { ok: true, message: { type: 'messageAction', action: raw.action, ...(hasMessage ? { messageId: raw.messageId as string } : { requestId: raw.requestId as string }) } };
    }
    default:
      return { ok: false, reason: `unknown type ${JSON.stringify(String(raw.type)).slice(0, 40)}` };
  }
}
