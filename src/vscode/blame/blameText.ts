// What the editor says of a line a Braid turn wrote (docs/ui.md, Blame in the editor): the hover's
// Markdown, the CodeLens's title, and the runs of lines a CodeLens stands above. A prompt, a model
// name, a commit's subject are text from the logs, untrusted: they reach the hover escaped, so they
// show as written and never become a link, an image or HTML. No vscode import: unit tests read it.
import { oneLineStart } from '../../core/format/textStart';
import type { LineAuthor } from '../../core/store/blame';
import { timeAgo } from '../../core/timeAgo';
import { OPEN_SESSION_COMMAND } from '../commandIds';

/** Characters of the prompt the hover shows, and the CodeLens. */
const HOVER_PROMPT = 200;
const LENS_PROMPT = 60;

/** Lines written by one turn, one after the other (0-based, `first` to `last` included): a CodeLens stands above the first. */
export interface AuthorRun {
  readonly first: number;
  readonly last: number;
  readonly author: LineAuthor;
}

/** The runs of consecutive lines written by the same turn, in order; lines no turn wrote are in none. */
export function authorRuns(authors: readonly (LineAuthor | null)[]): AuthorRun[] {
  const runs: AuthorRun[] = [];
  authors.forEach((author, line) => {
    const last = runs.at(-1);
    if (!author) return;
    if (last && last.last === line - 1 && sameTurn(last.author, author)) runs[runs.length - 1] = { ...last, last: line };
    else runs.push({ first: line, last: line, author });
  });
  return runs;
}

function sameTurn(a: LineAuthor, b: LineAuthor): boolean {
  return a.sessionId === b.sessionId && a.turn === b.turn;
}

/** What Braid: Open Session is given to open the author's session at its turn. */
export function openTurnArgs(author: LineAuthor): [{ id: string; turn: number }] {
  return [{ id: author.sessionId, turn: author.turn }];
}

/**
 * The hover of a line `author` wrote: its prompt, model, time and commit (or "uncommitted"), and
 * a link that opens its session at its turn (a `command:` link: the hover must trust that command alone).
 */
export function hoverMarkdown(author: LineAuthor, now = Date.now()): string {
  const commit = author.commit ? `commit ${markdownText(author.commit.id.slice(0, 9))} ${markdownText(oneLine(author.commit.subject, 80))}` : 'uncommitted';
  const facts = [
    author.model ? markdownText(author.model) : 'model not recorded',
    markdownText(`${timeAgo(author.at, now)} (${localTime(author.at)})`),
    commit,
  ];
  const link = `command:${OPEN_SESSION_COMMAND}?${encodeURIComponent(JSON.stringify(openTurnArgs(author)))}`;
  return [
    `**Written by Braid:** ${markdownText(oneLine(author.prompt, HOVER_PROMPT)) || '*(no prompt)*'}`,
    facts.join(' · '),
    `[Open the session at turn ${author.turn}](${link} "Open the session in the Chat view at this turn")`,
  ].join('\n\n');
}

/** The title of the CodeLens above lines `author` wrote. CodeLens titles show `$(name)` as an icon: a prompt's is escaped. */
export function lensTitle(author: LineAuthor): string {
  return `Written by Braid: ${oneLine(author.prompt, LENS_PROMPT)}`.replace(/\$\(/g, '\\$(');
}

/** `text` on one line, cut to `units` with an ellipsis. */
function oneLine(text: string, units: number): string {
  const { line, more } = oneLineStart(text, units);
  return more ? `${line}…` : line;
}

/**
 * `text` as Markdown that shows it as it is: every ASCII punctuation character escaped with a
 * backslash (CommonMark lets any be), so no link, image, emphasis, HTML tag, entity or autolink
 * (`https\://`, `www\.`, `a\@b`) can start in it. Line breaks become spaces.
 */
export function markdownText(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/[!-/:-@[-`{-~]/g, '\\$&');
}

/** `2026-12-05 22:40`, in this machine's time zone. */
function localTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}
