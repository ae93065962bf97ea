/**
 * `braid exec --resume[=<query>]`: which session of this workspace the prompt continues. In a
 * terminal the user picks it (the query filters, as `braid search` would); without one the query
 * must name exactly one session, and the matches are listed otherwise, so a script can choose
 * with `--session`.
 */
import type { SessionRow } from '../../core/index/indexRows';
import type { SessionStore } from '../../core/store/sessionStore';
import { sessionTitle } from '../../core/format/titles';
import { storeShortForms } from '../../core/format/sessionShortIds';
import { workspaceKey } from '../../core/workspace/workspaceKey';
import type { CliContext } from '../context';
import { firstOf, ListedError } from '../listedError';
import { EXIT_USAGE } from '../exitCodes';
import { oneLine } from '../terminalText';
import { rowLine } from '../commands/format';
import { pickInTerminal } from './terminalPicker';

/** The sessions a query lists at most: the picker scrolls through them; more would be a query to refine. */
const LISTED = 200;
/** Matches an error lists at most. */
const ERROR_LISTED = 10;

/** The session to continue, or the user cancelled the picker (Esc; Ctrl+C: `interrupt`). */
export type ResumeChoice = { readonly kind: 'session'; readonly id: string } | { readonly kind: 'cancelled'; readonly interrupt: boolean };

/** The session `--resume` continues: picked in the terminal, or the only one the query matches. */
export async function resumeChoice(ctx: CliContext, store: SessionStore, query: string | undefined): Promise<ResumeChoice> {
  const key = workspaceKey(ctx.workspace);
  await store.index.catchUpWithFolders(key); // a session made behind the index's back is offered too
  const find = (text: string) =>
    text.trim() ? store.index.search(text, { workspaceKey: key, limit: LISTED }) : store.index.list({ workspaceKey: key, limit: LISTED });
  if (find('').length === 0) throw new Error(`there is no session to resume in ${oneLine(ctx.workspace)}; run braid exec without --resume to start one`);
  if (!ctx.terminal) return { kind: 'session', id: onlyMatch(ctx, query, find(query ?? '')) };
  const short = storeShortForms(store.layout);
  const picked = await pickInTerminal(ctx.terminal, {
    heading: 'Resume a session: type to search, ↑↓ to move, Enter to pick, Esc to cancel',
    query: query ?? '',
    find: (text) => find(text).map((row) => ({ text: rowLine(row, false, short(row.id)), value: row })),
  });
  if (picked.kind === 'cancelled') return picked;
  ctx.err(`braid: resuming ${short(picked.value.id)} "${oneLine(sessionTitle(picked.value) || '(untitled)')}"\n`);
  return { kind: 'session', id: picked.value.id };
}

/** Without a terminal: the one session `rows` holds; none or several is an error that lists them, whole ids and all. */
function onlyMatch(ctx: CliContext, query: string | undefined, rows: readonly SessionRow[]): string {
  if (rows.length === 1) return rows[0]!.id;
  const typed = query === undefined ? '--resume' : `--resume=${JSON.stringify(query)}`;
  if (rows.length === 0) throw new Error(`${typed} matches no session of ${oneLine(ctx.workspace)} (braid list shows them)`);
  const count = rows.length === LISTED ? `at least ${LISTED}` : String(rows.length);
  throw new ListedError(
    `${typed} matches ${count} sessions and there is no terminal to pick one in; name one with --session <id>, or narrow the query:`,
    firstOf(
      rows.map((row) => rowLine(row, false, row.id)),
      ERROR_LISTED,
    ),
    EXIT_USAGE,
  );
}
