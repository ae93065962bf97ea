import { isSessionId } from '../core/ids';
import { listSessionFolders } from '../core/format/layout';
import { type SessionStore } from '../core/store/sessionStore';
import { SessionNotFoundError } from '../core/store/errors';
import { promptText } from '../core/format/messageText';
import { textStart } from '../core/format/textStart';
import { isKnown, isPromptRecord, type MessageRecord } from '../core/wire/records';
import { factsOf } from '../core/format/logFold';
import { turnPrompt } from '../core/store/droppedTurns';
import { scanWireLog } from '../core/wire/wireReader';
import { sessionShortForms, type ShortForms } from '../core/format/sessionShortIds';
import { rowLine } from './commands/format';
import type { CliContext } from './context';
import { checkTypedLength, pickOne, PROMPT_IDS, resolveId, SESSION_IDS, shortForms, splitId } from './idPrefix';
import { oneLine } from './terminalText';
import { counted } from '../core/counted';

/** Session ids asked of the index at most for one shortened id (more are listed as "at least"). */
const QUERY_LIMIT = 50;
const WHOLE_PROMPT_ID = /^(msg-user-v1-[0-9a-f]{64}|msg_[0-9A-HJKMNP-TV-Z]{26})$/;

/**
 * The full id of the session `typed` names. A whole id is taken as it is (the store says when it
 * is missing or deleted). A shortened one is the beginning of an id (`ses_01M8QS`, `01M8QS`) or,
 * typed without `ses_`, its end (the short form sessions are shown by: `7QZK3M`). It is looked up
 * among the sessions of every workspace, archived and hidden ones too: through the index, then
 * the session folders (a session the index has not seen yet), then the trash, so that a deleted
 * session's error says where it went. `undelete` looks in the trash only.
 */
export function resolveSessionId(store: SessionStore, typed: string, scope: 'live' | 'trash' = 'live'): string {
  if (isSessionId(typed)) return typed;
  const { prefix: typedPrefix, body } = splitId(typed, SESSION_IDS);
  if (!/^[0-9A-Za-z]{0,26}$/.test(body))
    throw new SessionNotFoundError(`"${typed}" is not a session id (they look like ses_01J... and are shown by their end, like 7QZK3M)`);
  checkTypedLength(typed, SESSION_IDS);
  const start = `ses_${body.toUpperCase()}`;
  const end = typedPrefix ? undefined : body.toUpperCase();
  const named = (id: string) => id.startsWith(start) || (end !== undefined && id.endsWith(end));
  const trashed = () =>
    store
      .listTrash()
      .map((t) => t.id)
      .filter(named);
  let found = scope === 'trash' ? trashed() : store.index.idsStartingWith(start, QUERY_LIMIT);
  const truncated = found.length === QUERY_LIMIT;
  let folders: string[] | undefined; // the session folders' ids, listed once when needed
  const listed = () => (folders ??= folderIds(store));
  if (scope === 'live' && end !== undefined && !truncated) found = [...new Set([...found, ...listed().filter((id) => id.endsWith(end))])];
  if (found.length === 0 && scope === 'live') found = listed().filter(named);
  if (found.length === 0 && scope === 'live') found = trashed();
  return pickOne(typed, found, SESSION_IDS, {
    truncated,
    notFound: () =>
      new SessionNotFoundError(
        scope === 'trash'
          ? `no session in the trash has an id that begins or ends with "${typed}"`
          : `no session has an id that begins or ends with "${typed}" (braid list --all shows them)`,
      ),
    describe: (id) => {
      const row = store.index.get(id);
      return row ? rowLine(row, true, id) : `${id}  (in the trash, or not indexed yet)`;
    },
  });
}

/** The ids of every session folder of the store. */
function folderIds(store: SessionStore): string[] {
  return listSessionFolders(store.layout).map((f) => f.id);
}

/** Each session's short form among every session of the store (sessionShortForms), made once per store. */
const shortFormsOf = new WeakMap<SessionStore, ShortForms>();

/** The short form `id` is shown by in the CLI's messages; the whole id when the store has no such folder. */
export function shortSessionId(store: SessionStore, id: string): string {
  let forms = shortFormsOf.get(store);
  if (!forms?.has(id)) shortFormsOf.set(store, (forms = sessionShortForms([...folderIds(store), id])));
  return forms.get(id) ?? id;
}

/** A prompt of a session's main log: its turn and text. */
interface PromptEntry {
  readonly turn: number;
  readonly text: string;
}

/** Every prompt (user message) a session's main log holds, rewound ones too: a rewind may go again to the prompt it went to. */
export function promptsOf(store: SessionStore, sessionId: string): Map<string, PromptEntry> {
  const prompts = new Map<string, PromptEntry>();
  scanWireLog(
    store.layout.agentLog(store.locate(sessionId)),
    (r) => {
      if (!isKnown(r) || r.t !== 'message') return;
      const m = r as MessageRecord;
      if (m.message && isPromptRecord(m) && typeof m.id === 'string') prompts.set(m.id, { turn: m.turn, text: promptText(m.message) });
    },
    { only: ['message'] },
  );
  return prompts;
}

/** The full id of the prompt of `sessionId` that `typed` names (whole, or its unique beginning). */
export function resolvePromptId(store: SessionStore, sessionId: string, typed: string): string {
  if (WHOLE_PROMPT_ID.test(typed)) return typed; // the rewind says what is wrong with it, if anything
  const prompts = promptsOf(store, sessionId);
  const shown = shortForms(prompts.keys(), PROMPT_IDS);
  return resolveId(typed, prompts.keys(), PROMPT_IDS, {
    notFound: () => {
      const session = shortSessionId(store, sessionId);
      return new Error(`no prompt of ${session} has an id that begins with "${typed}" (braid show ${session} lists them)`);
    },
    describe: (id) => oneLine(`${shown.get(id)}  turn ${prompts.get(id)!.turn}  ${JSON.stringify(textStart(prompts.get(id)!.text, 60))}`),
  });
}

/**
 * The prompt that began effective turn `turn` of a session: what `rewind --turn` goes back to,
 * read from that turn's span in the log (the session's turn map says where it lies). When the
 * session's last act was a rewind to that turn, its prompt (rewinding again restores what that
 * rewind left, as `--to` would). Refused when there is no such turn, or while it runs.
 */
export function promptOfTurn(store: SessionStore, sessionId: string, turn: number): string {
  const dir = store.locate(sessionId);
  const summary = store.summaryAt(dir);
  const fold = summary.fold;
  if (factsOf(fold).openTurn === turn) throw new Error(`turn ${turn} of ${shortSessionId(store, sessionId)} is still running; stop it before rewinding`);
  const facts = fold.turns.find((t) => t.turn === turn);
  // A turn another tool began with its own context (an imported command) has no prompt: its first user message marks it.
  const prompt = facts && turnPrompt(store.layout.agentLog(dir), facts);
  if (prompt) return prompt.id;
  const last = fold.lastRewind;
  if (typeof last === 'object' && last?.toTurn === turn) return last.messageId;
  if (facts?.began)
    throw new Error(`turn ${turn} of ${shortSessionId(store, sessionId)} has no prompt saved (it was cut short); rewind to turn ${turn - 1} or earlier`);
  throw new Error(
    `session ${shortSessionId(store, sessionId)} has no turn ${turn}; it has ${counted(summary.state.turnCount, 'turn')} (braid show ${shortSessionId(store, sessionId)} numbers them)`,
  );
}

/** Opens the store (there must be one), resolves `typed` to a session's id, and runs `fn` with both. */
export function withSession(
  ctx: CliContext,
  typed: string,
  fn: (store: SessionStore, id: string) => Promise<number>,
  scope: 'live' | 'trash' = 'live',
): Promise<number> {
  return ctx.withStore((store) => fn(store, resolveSessionId(store, typed, scope)));
}
