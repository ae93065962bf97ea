import {
  IMAGE_TYPES,
  MAX_ATTACHMENTS,
  MAX_CHANGE_KEYS,
  MAX_IMAGE_BYTES,
  MAX_MENTION_QUERY,
  MAX_OLDER_PAGE,
  MAX_PROMPT_CHARS,
  MAX_REVEAL_WORD,
  MAX_REVEAL_WORDS,
  MESSAGE_ACTIONS,
  PAGE_COMMANDS,
  QUEUE_ACTIONS,
  SLASH_COMMANDS,
  type AttachmentRef,
  type CommandMessage,
  type MessageAction,
  type QueueAction,
  type TurnReveal,
  type WebviewToHost,
} from './messages';
import { isTurnMode } from './modes';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 128;
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

function text(raw: Record<string, unknown>, what: string): string | { reason: string } {
  if (typeof raw.text !== 'string' || raw.text.trim() === '') return { reason: `${what} without text` };
  if (raw.text.length > MAX_PROMPT_CHARS) return { reason: `${what} longer than ${MAX_PROMPT_CHARS} characters` };
  return raw.text;
}

const ATTACHMENT_KINDS: readonly string[] = ['file', 'selection', 'folder', 'editor', 'problems', 'gitDiff', 'image', 'mcpResource'];
/** Base64 of at most MAX_IMAGE_BYTES bytes. */
const MAX_IMAGE_BASE64 = Math.ceil(MAX_IMAGE_BYTES / 3) * 4;
/** An MCP resource as `server:uri` (the URI with its scheme). */
const MCP_RESOURCE = /^[\w.-]+:[a-zA-Z][\w+.-]*:\S+$/;
/** Kinds that name a place in the workspace. */
const WITH_PATH: readonly string[] = ['file', 'selection', 'folder', 'editor'];

/** A path the page names: relative, '/' separated, no '..' step, no control character. */
function isRelativePath(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 4096) return false;
  // eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
  if (/[\u0000-\u001f\u007f\\]/.test(value) || value.startsWith('/') || /^[a-zA-Z]:/.test(value)) return false;
  return !value.split('/').some((step) => step === '..');
}

/** One chip of a prompt, or the reason it is refused. */
function attachment(raw: unknown): AttachmentRef | string {
  if (!isRecord(raw) || !ATTACHMENT_KINDS.includes(raw.kind as string)) return 'an attachment of an unknown kind';
  const kind = raw.kind as AttachmentRef['kind'];
  if (typeof raw.label !== 'string' || raw.label.length === 0 || raw.label.length > 500) return 'an attachment without a label';
  const needsPath = WITH_PATH.includes(kind);
  if (needsPath !== (raw.path !== undefined)) return needsPath ? `a ${kind} attachment without a path` : `a ${kind} attachment with a path`;
  if (needsPath && !isRelativePath(raw.path)) return 'an attachment whose path is not a workspace-relative path';
  if ((kind === 'selection') !== (raw.lines !== undefined)) return kind === 'selection' ? 'a selection without its lines' : `a ${kind} attachment with lines`;
  if ((kind === 'image') !== (raw.image !== undefined))
    return kind === 'image' ? 'an image attachment without its image' : `a ${kind} attachment with an image`;
  let image: { mimeType: string; data: string } | undefined;
  if (kind === 'image') {
    const i = raw.image;
    if (!isRecord(i) || !IMAGE_TYPES.includes(i.mimeType as string)) return `an image that is not one of ${IMAGE_TYPES.join(', ')}`;
    if (typeof i.data !== 'string' || i.data.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(i.data)) return 'an image whose data is not base64';
    if (i.data.length > MAX_IMAGE_BASE64) return `an image larger than ${MAX_IMAGE_BYTES / (1024 * 1024)} MiB`;
    image = { mimeType: i.mimeType as string, data: i.data };
  }
  if ((kind === 'mcpResource') !== (raw.uri !== undefined))
    return kind === 'mcpResource' ? 'an MCP resource without its URI' : `a ${kind} attachment with a URI`;
  if (kind === 'mcpResource' && (typeof raw.uri !== 'string' || raw.uri.length > 4096 || !MCP_RESOURCE.test(raw.uri)))
    return 'an MCP resource whose URI is not server:uri';
  let lines: [number, number] | undefined;
  if (kind === 'selection') {
    const l = raw.lines;
    if (!Array.isArray(l) || l.length !== 2 || !isCount(l[0]) || !isCount(l[1]) || l[0] < 1 || l[1] < l[0]) return 'a selection whose lines are not a range';
    lines = [l[0], l[1]];
  }
  return {
    kind,
    label: raw.label,
    ...(needsPath ? { path: raw.path as string } : {}),
    ...(lines ? { lines } : {}),
    ...(image ? { image } : {}),
    ...(kind === 'mcpResource' ? { uri: raw.uri as string } : {}),
  };
}

/** A prompt's chips, or the reason they are refused. */
function attachments(raw: unknown): AttachmentRef[] | string {
  if (raw === undefined) return [];
  if (!Array.isArray(raw)) return 'attachments that are not a list';
  if (raw.length > MAX_ATTACHMENTS) return `more than ${MAX_ATTACHMENTS} attachments`;
  const out: AttachmentRef[] = [];
  for (const item of raw) {
    const a = attachment(item);
    if (typeof a === 'string') return a;
    out.push(a);
  }
  return out;
}

/** A message's check: the typed message with only the fields it knows (extra ones dropped), or why it is refused. */
type Check<M> = (raw: Record<string, unknown>) => M | string;

/**
 * Every message the webview sends, by type, with the check of its fields: the host knows a message
 * only from this table. Typed by `WebviewToHost`, a table missing a message type, or with a type
 * the union does not have, fails typecheck.
 */
export const WEBVIEW_MESSAGES: { readonly [K in WebviewToHost['type']]: Check<Extract<WebviewToHost, { type: K }>> } = {
  ready: (raw) =>
    typeof raw.protocol === 'number' && Number.isInteger(raw.protocol) ? { type: 'ready', protocol: raw.protocol } : 'ready without an integer protocol',
  framesAfter: (raw) => (isCount(raw.after) ? { type: 'framesAfter', after: raw.after } : 'framesAfter without a cursor'),
  prompt: (raw) => {
    if (!isId(raw.requestId)) return 'prompt without a requestId';
    const t = text(raw, 'prompt');
    if (typeof t !== 'string') return t.reason;
    const mode = raw.mode;
    if (mode !== undefined && !isTurnMode(mode)) return 'prompt with an unknown mode';
    const attached = attachments(raw.attachments);
    if (typeof attached === 'string') return `prompt with ${attached}`;
    return {
      type: 'prompt',
      requestId: raw.requestId,
      text: t,
      ...(raw.steer === true ? { steer: true } : {}),
      ...(mode ? { mode } : {}),
      ...(attached.length > 0 ? { attachments: attached } : {}),
      ...(raw.command === true ? { command: true as const } : {}),
      ...(raw.goal === true ? { goal: true as const } : {}),
    };
  },
  mentionQuery: (raw) => {
    if (!isCount(raw.id)) return 'mentionQuery without an id';
    if (typeof raw.query !== 'string' || raw.query.length > MAX_MENTION_QUERY) return `mentionQuery without a query of at most ${MAX_MENTION_QUERY} characters`;
    return { type: 'mentionQuery', id: raw.id, query: raw.query };
  },
  cancel: () => ({ type: 'cancel' }),
  queueAction: (raw) => {
    if (!QUEUE_ACTIONS.includes(raw.action as QueueAction)) return 'queueAction with an unknown action';
    if (!isId(raw.promptId)) return 'queueAction without a promptId';
    return { type: 'queueAction', action: raw.action as QueueAction, promptId: raw.promptId };
  },
  approval: (raw) => {
    if (!isId(raw.approvalId)) return 'approval without an approvalId';
    if (raw.decision !== 'allow' && raw.decision !== 'allow-session' && raw.decision !== 'allow-always' && raw.decision !== 'deny')
      return 'approval with an unknown decision';
    return { type: 'approval', approvalId: raw.approvalId, decision: raw.decision };
  },
  openDiff: (raw) => (isId(raw.toolCallId) ? { type: 'openDiff', toolCallId: raw.toolCallId } : 'openDiff without a toolCallId'),
  changes: (raw) => {
    if (raw.action !== 'keep' && raw.action !== 'undo' && raw.action !== 'diff') return 'changes with an unknown action';
    if (raw.scope !== 'turn' && raw.scope !== 'session') return 'changes with an unknown scope';
    const keys = raw.keys;
    const named = Array.isArray(keys) && keys.length <= MAX_CHANGE_KEYS && keys.every((k) => typeof k === 'string' && k.length > 0 && k.length <= 8192);
    if (keys !== 'all' && !named) return 'changes without valid keys';
    if (raw.action === 'diff' && (keys === 'all' || keys.length !== 1)) return 'changes diff names one file';
    return { type: 'changes', action: raw.action, scope: raw.scope, keys: keys === 'all' ? 'all' : [...(keys as string[])] };
  },
  messageAction: (raw) => {
    if (!MESSAGE_ACTIONS.includes(raw.action as MessageAction)) return 'messageAction with an unknown action';
    const hasMessage = isId(raw.messageId);
    const hasRequest = isId(raw.requestId);
    if (hasMessage === hasRequest) return 'messageAction needs exactly one of messageId and requestId';
    return {
      type: 'messageAction',
      action: raw.action as MessageAction,
      ...(hasMessage ? { messageId: raw.messageId as string } : { requestId: raw.requestId as string }),
    };
  },
  loadOlder: (raw) => {
    const before = raw.before;
    if (!isId(raw.sessionId)) return 'loadOlder without a sessionId';
    if (!isRecord(before) || !isCount(before.offset) || !(isCount(before.minRewind) || before.minRewind === null)) return 'loadOlder without a page cursor';
    if (!isCount(raw.limit) || raw.limit < 1 || raw.limit > MAX_OLDER_PAGE) return `loadOlder without a page size of 1 to ${MAX_OLDER_PAGE}`;
    return { type: 'loadOlder', sessionId: raw.sessionId, before: { offset: before.offset, minRewind: before.minRewind as number | null }, limit: raw.limit };
  },
  command: (raw) => {
    const known =
      (PAGE_COMMANDS as readonly unknown[]).includes(raw.name) ||
      (typeof raw.name === 'string' && raw.name !== 'btw' && (SLASH_COMMANDS as readonly string[]).includes(raw.name));
    if (!known) return 'command with an unknown name';
    if (raw.arg !== undefined && (typeof raw.arg !== 'string' || raw.arg.length > 2000)) return 'command with a bad argument';
    return { type: 'command', name: raw.name as CommandMessage['name'], ...(typeof raw.arg === 'string' && raw.arg.trim() ? { arg: raw.arg.trim() } : {}) };
  },
  listModels: () => ({ type: 'listModels' }),
  listCommands: () => ({ type: 'listCommands' }),
  selectModel: (raw) => {
    const choice = raw.choice;
    if (!isRecord(choice) || (choice.kind !== 'model' && choice.kind !== 'provider') || !isId(choice.provider))
      return 'selectModel without a model or provider';
    if (choice.kind === 'model' && !(typeof choice.model === 'string' && choice.model.length > 0 && choice.model.length <= 256))
      return 'selectModel without a model id';
    return {
      type: 'selectModel',
      choice: { kind: choice.kind, provider: choice.provider, ...(choice.kind === 'model' ? { model: choice.model as string } : {}) },
    };
  },
  sideQuestion: (raw) => {
    if (!isId(raw.id)) return 'sideQuestion without an id';
    const t = text(raw, 'sideQuestion');
    return typeof t === 'string' ? { type: 'sideQuestion', id: raw.id, text: t } : t.reason;
  },
  keepSide: (raw) => (isId(raw.id) ? { type: 'keepSide', id: raw.id } : 'keepSide without an id'),
  chooseMode: (raw) => (isTurnMode(raw.mode) ? { type: 'chooseMode', mode: raw.mode } : 'chooseMode without a known mode'),
};

type Parsed = { ok: true; message: WebviewToHost } | { ok: false; reason: string };

/**
 * Validates a message from the webview with its type's check in WEBVIEW_MESSAGES. Returns the
 * typed message, or a reason it was rejected (not an object, a type not in the table, a field the
 * check refuses).
 */
export function parseWebviewMessage(raw: unknown): Parsed {
  if (!isRecord(raw)) return { ok: false, reason: 'not an object' };
  const type = raw.type;
  // Own keys only: `toString` or `__proto__` are no message types.
  if (typeof type !== 'string' || !Object.hasOwn(WEBVIEW_MESSAGES, type))
    return { ok: false, reason: `unknown type ${JSON.stringify(String(type)).slice(0, 40)}` };
  const check = WEBVIEW_MESSAGES[type as WebviewToHost['type']] as Check<WebviewToHost>;
  const message = check(raw);
  return typeof message === 'string' ? { ok: false, reason: message } : { ok: true, message };
}

const isKey = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 1024;
const isWord = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= MAX_REVEAL_WORD;

/**
 * A snapshot's turn to reveal, checked where the page reads it (the host is trusted, yet what
 * reaches a pattern or the DOM is checked as any message is): the reveal with only the fields it
 * knows, or undefined when it is absent or malformed.
 */
export function parseTurnReveal(raw: unknown): TurnReveal | undefined {
  if (!isRecord(raw) || !isKey(raw.id) || !isCount(raw.turn) || !isKey(raw.from) || !isKey(raw.to)) return undefined;
  const words = raw.words;
  if (!Array.isArray(words) || words.length > MAX_REVEAL_WORDS || !words.every(isWord)) return undefined;
  return { id: raw.id, turn: raw.turn, from: raw.from, to: raw.to, words: [...words] };
}
