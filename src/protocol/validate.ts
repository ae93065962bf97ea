import { MAX_CHANGE_KEYS, MAX_OLDER_PAGE, MAX_PROMPT_CHARS, PAGE_COMMANDS, SLASH_COMMANDS, type WebviewToHost } from './messages';
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

type Parsed = { ok: true; message: WebviewToHost } | { ok: false; reason: string };
const fail = (reason: string): Parsed => ({ ok: false, reason });
const ok = (message: WebviewToHost): Parsed => ({ ok: true, message });

/**
 * Validates a message from the webview. Returns the typed message, or a reason it was rejected.
 * Extra fields are dropped so nothing unvalidated travels further.
 */
export function parseWebviewMessage(raw: unknown): Parsed {
  if (!isRecord(raw)) return fail('not an object');
  switch (raw.type) {
    case 'ready':
      if (typeof raw.protocol !== 'number' || !Number.isInteger(raw.protocol)) return fail('ready without an integer protocol');
      return ok({ type: 'ready', protocol: raw.protocol });
    case 'framesAfter':
      if (!isCount(raw.after)) return fail('framesAfter without a cursor');
      return ok({ type: 'framesAfter', after: raw.after });
    case 'prompt': {
      if (!isId(raw.requestId)) return fail('prompt without a requestId');
      const t = text(raw, 'prompt');
      if (typeof t !== 'string') return fail(t.reason);
      const mode = raw.mode;
      if (mode !== undefined && !isTurnMode(mode)) return fail('prompt with an unknown mode');
      return ok({ type: 'prompt', requestId: raw.requestId, text: t, ...(raw.steer === true ? { steer: true } : {}), ...(mode ? { mode } : {}) });
    }
    case 'cancel':
      return ok({ type: 'cancel' });
    case 'queueAction':
      if (raw.action !== 'steer' && raw.action !== 'cancel' && raw.action !== 'resume') return fail('queueAction with an unknown action');
      if (!isId(raw.promptId)) return fail('queueAction without a promptId');
      return ok({ type: 'queueAction', action: raw.action, promptId: raw.promptId });
    case 'approval':
      if (!isId(raw.approvalId)) return fail('approval without an approvalId');
      if (raw.decision !== 'allow' && raw.decision !== 'allow-session' && raw.decision !== 'deny') return fail('approval with an unknown decision');
      return ok({ type: 'approval', approvalId: raw.approvalId, decision: raw.decision });
    case 'openDiff':
      if (!isId(raw.toolCallId)) return fail('openDiff without a toolCallId');
      return ok({ type: 'openDiff', toolCallId: raw.toolCallId });
    case 'changes': {
      if (raw.action !== 'keep' && raw.action !== 'undo' && raw.action !== 'diff') return fail('changes with an unknown action');
      if (raw.scope !== 'turn' && raw.scope !== 'session') return fail('changes with an unknown scope');
      const keys = raw.keys;
      const named = Array.isArray(keys) && keys.length <= MAX_CHANGE_KEYS && keys.every((k) => typeof k === 'string' && k.length > 0 && k.length <= 8192);
      if (keys !== 'all' && !named) return fail('changes without valid keys');
      if (raw.action === 'diff' && (keys === 'all' || keys.length !== 1)) return fail('changes diff names one file');
      return ok({ type: 'changes', action: raw.action, scope: raw.scope, keys: keys === 'all' ? 'all' : [...(keys as string[])] });
    }
    case 'messageAction': {
      if (raw.action !== 'rewind' && raw.action !== 'fork' && raw.action !== 'edit') return fail('messageAction with an unknown action');
      const hasMessage = isId(raw.messageId);
      const hasRequest = isId(raw.requestId);
      if (hasMessage === hasRequest) return fail('messageAction needs exactly one of messageId and requestId');
      return ok({
        type: 'messageAction',
        action: raw.action,
        ...(hasMessage ? { messageId: raw.messageId as string } : { requestId: raw.requestId as string }),
      });
    }
    case 'loadOlder': {
      const before = raw.before;
      if (!isId(raw.sessionId)) return fail('loadOlder without a sessionId');
      if (!isRecord(before) || !isCount(before.offset) || !(isCount(before.minRewind) || before.minRewind === null))
        return fail('loadOlder without a page cursor');
      if (!isCount(raw.limit) || raw.limit < 1 || raw.limit > MAX_OLDER_PAGE) return fail(`loadOlder without a page size of 1 to ${MAX_OLDER_PAGE}`);
      return ok({
        type: 'loadOlder',
        sessionId: raw.sessionId,
        before: { offset: before.offset, minRewind: before.minRewind as number | null },
        limit: raw.limit,
      });
    }
    case 'command':
      if (
        (PAGE_COMMANDS as readonly unknown[]).includes(raw.name) ||
        (typeof raw.name === 'string' && raw.name !== 'btw' && (SLASH_COMMANDS as readonly string[]).includes(raw.name))
      ) {
        if (raw.arg !== undefined && (typeof raw.arg !== 'string' || raw.arg.length > 2000)) return fail('command with a bad argument');
        return ok({ type: 'command', name: raw.name as 'new', ...(typeof raw.arg === 'string' && raw.arg.trim() ? { arg: raw.arg.trim() } : {}) });
      }
      return fail('command with an unknown name');
    case 'listModels':
      return ok({ type: 'listModels' });
    case 'selectModel': {
      const choice = raw.choice;
      if (!isRecord(choice) || (choice.kind !== 'model' && choice.kind !== 'provider') || !isId(choice.provider))
        return fail('selectModel without a model or provider');
      if (choice.kind === 'model' && !(typeof choice.model === 'string' && choice.model.length > 0 && choice.model.length <= 256))
        return fail('selectModel without a model id');
      return ok({
        type: 'selectModel',
        choice: { kind: choice.kind, provider: choice.provider, ...(choice.kind === 'model' ? { model: choice.model as string } : {}) },
      });
    }
    case 'sideQuestion': {
      if (!isId(raw.id)) return fail('sideQuestion without an id');
      const t = text(raw, 'sideQuestion');
      if (typeof t !== 'string') return fail(t.reason);
      return ok({ type: 'sideQuestion', id: raw.id, text: t });
    }
    case 'keepSide':
      if (!isId(raw.id)) return fail('keepSide without an id');
      return ok({ type: 'keepSide', id: raw.id });
    default:
      return fail(`unknown type ${JSON.stringify(String(raw.type)).slice(0, 40)}`);
  }
}
