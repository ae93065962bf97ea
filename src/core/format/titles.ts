// Session titles: how they are made, cut and shown. One cut serves every surface (the tree,
// pickers, the status bar, the CLI's listings, exports and usage reports), so a title never ends
// in half a word and always says when it was cut. Each reads only the start of a text: a first
// prompt can be tens of megabytes.
import { BIDI_CONTROLS, oneLineStart } from './textStart';

/** The longest title Braid makes (an automatic title, a fork's source), in characters as the user sees them. */
export const TITLE_MAX = 50;

const ELLIPSIS = '…';

/**
 * How much of a text a cut looks at, in UTF-16 units per character it may show: 64 is more than
 * any emoji sequence or cluster of marks a user types takes, and bounds the work on a huge prompt.
 */
const UNITS_PER_CHARACTER = 64;

/** A stored title longer than this (a user's rename, a subagent's task) is shown cut: no label is wider. */
export const SHOWN_TITLE_MAX = 200;

/** Scripts written without spaces between words (Chinese, Japanese): a line may break between any two of their characters. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303F\uFF01-\uFF60]/u;

/** A character a cut title may not end with before its ellipsis. */
const DANGLING = /^[\s.,;:\-–—、。，；：]$/u;

/** Made on first use: creating it loads ICU's segmentation data (about 7 ms, measured), which a listing never needs. */
let graphemes: Intl.Segmenter | undefined;

/** Text for a one-line label: without bidi controls. */
export function labelText(text: string): string {
  return text.replace(BIDI_CONTROLS, '');
}

/**
 * The first `count` characters of a text as the user sees them (an emoji with its modifiers or a
 * flag is one), and no more: ICU's segmenter slows down with the length of what it is given, so
 * it is only ever given the short start of a text.
 */
function characters(text: string, count: number): string[] {
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const chars: string[] = [];
  for (const { segment } of graphemes.segment(text)) {
    if (chars.length === count) break;
    chars.push(segment);
  }
  return chars;
}

/** Whether a title may be cut just before `chars[i]`: at a space, or next to a character of an unspaced script. */
function isBoundary(chars: readonly string[], i: number): boolean {
  return chars[i] === ' ' || UNSPACED.test(chars[i - 1]!) || UNSPACED.test(chars[i] ?? '');
}

/**
 * At most `room` characters, ending at a word boundary, then the ellipsis. A word that would
 * leave less than half the room (a long path or address) is cut through instead of dropped.
 */
function cutAt(chars: readonly string[], room: number): string {
  let cut = room;
  while (cut > 0 && !isBoundary(chars, cut)) cut--;
  if (cut < room / 2) cut = room;
  while (cut > 0 && DANGLING.test(chars[cut - 1]!)) cut--;
  return chars.slice(0, cut).join('') + ELLIPSIS;
}

/**
 * A title on one line of at most `max` characters (the ellipsis included): cut at a word
 * boundary with an ellipsis when longer, by characters in Chinese and Japanese text. Only the
 * text's start is read (the title's characters, at most 64 units each, and runs of spaces).
 */
export function cutTitle(text: string, max = TITLE_MAX): string {
  const { line, more } = oneLineStart(text, (max + 1) * UNITS_PER_CHARACTER);
  // One character more than a title shows says whether it must be cut, and the last of `line`
  // may be cut short when the line goes on; the characters before it are whole.
  const chars = characters(line, max + 2);
  if (!more && chars.length <= max) return line;
  const whole = more || chars.length > max + 1 ? chars.slice(0, -1) : chars;
  return cutAt(whole, Math.min(max - 1, whole.length));
}

/** A session's automatic title: its first prompt on one line, cut. */
export function autoTitle(firstPrompt: string): string {
  return cutTitle(firstPrompt);
}

/** The title fields a display needs; `firstPrompt` is the index's (the start of the first prompt). */
export interface TitleFields {
  readonly title?: string | null;
  readonly titleSource?: string;
  readonly firstPrompt?: string | null;
}

/**
 * Automatic titles of Braid 0.1.0 were the first 50 code points of the first prompt, often cut
 * mid-word ("… Please read README.md a"). Such a stored title is shown cut again; the stored
 * value is left alone (it is data; a rename replaces it).
 */
function isOldCut(title: string, s: TitleFields): boolean {
  // 50 code points take at most 100 units: a longer title is not counted through.
  if (s.titleSource !== 'auto' || title.length > 100 || Array.from(title).length !== 50 || title.endsWith(ELLIPSIS)) return false;
  if (!s.firstPrompt) return true;
  // With the first prompt at hand, the title was cut only if the prompt goes on.
  const { line } = oneLineStart(s.firstPrompt, title.length + 1);
  return line.startsWith(title) && line.length > title.length;
}

/**
 * A stored title (a session's, a subagent's task) as a label shows it: without bidi controls,
 * and cut when longer than SHOWN_TITLE_MAX characters (a rename can be any length).
 */
export function storedTitleLabel(title: string): string {
  return title.length <= SHOWN_TITLE_MAX ? labelText(title) : cutTitle(title, SHOWN_TITLE_MAX);
}

/**
 * A title as Braid stores one the user gave (a rename, or another tool's own title for a session
 * it imports): one line, at most SHOWN_TITLE_MAX characters, cut at a word with an ellipsis.
 */
export function storedTitle(text: string): string {
  return cutTitle(text, SHOWN_TITLE_MAX);
}

/** A session's title as displays show it ('' when it has none yet): stored titles of older versions cut mid-word are cut again. */
export function shownTitle(s: TitleFields): string {
  const title = storedTitleLabel(s.title ?? '');
  if (!isOldCut(title, s)) return title;
  // Without the prompt the last word may be whole; dropping it is the safe side.
  return s.firstPrompt ? cutTitle(s.firstPrompt) : cutAt(characters(title, TITLE_MAX), TITLE_MAX - 1);
}

/** A session's title, else the start of its first prompt, cut ('' when it has neither). */
export function sessionTitle(s: TitleFields): string {
  return shownTitle(s) || cutTitle(s.firstPrompt ?? '');
}

/** A session's name in a list, a tree or a quick pick. */
export function sessionLabel(s: TitleFields): string {
  return sessionTitle(s) || 'Untitled session';
}

/** A fork's own title as forkTitle makes it: its number, its turn, and the title of what it forked. */
const FORK_TITLE = /^Fork(?: \d+)?(?: at turn \d+)? of (.+)$/s;

/** The title a chain of forks began with: "Plan the notes" of "Fork at turn 2 of Plan the notes"; any other title as it is. */
export function forkOrigin(title: string): string {
  return FORK_TITLE.exec(title)?.[1] ?? title;
}

/**
 * A fork's title: what it is and of which session ("Fork at turn 3 of Plan the notes", "Fork of
 * Plan the notes"). A fork of a fork names the session the chain began with, not "Fork of Fork
 * of …" (the Sessions tree nests forks under their source, which tells the chain). `taken` holds
 * the titles of the source's other forks, and the source's own title is taken too: a fork that
 * would read like one of them gets the first free number, up front where a narrow tree still shows
 * it ("Fork 2 at turn 3 of Plan the notes"), so two forks are never told apart by their time alone.
 */
export function forkTitle(sourceTitle: string, turn: number | null, taken: ReadonlySet<string> = new Set()): string {
  const origin = forkOrigin(sourceTitle);
  const title = (n: number) => `Fork${n > 1 ? ` ${n}` : ''}${turn === null ? '' : ` at turn ${turn}`} of ${cutTitle(origin)}`;
  let n = 1;
  while (taken.has(title(n)) || title(n) === sourceTitle) n++;
  return title(n);
}
