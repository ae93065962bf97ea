// Session titles: how they are made, cut and shown. One cut serves every surface (the tree,
// pickers, the status bar, the CLI's listings, exports and usage reports), so a title never ends
// in half a word and always says when it was cut.

/** The longest title Braid makes (an automatic title, a fork's source), in characters as the user sees them. */
export const TITLE_MAX = 50;

const ELLIPSIS = '…';

/** Bidi controls: in a title shown in a one-line label they would reorder what follows it (the row's description, the status bar). */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g;

/** Scripts written without spaces between words (Chinese, Japanese): a line may break between any two of their characters. */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\u3000-\u303F\uFF01-\uFF60]/u;

/** What a cut title may not end with before its ellipsis. */
const DANGLING = /[\s.,;:\-–—、。，；：]+$/u;

/** Made on first use: creating it loads ICU's segmentation data (about 7 ms, measured), which a listing never needs. */
let graphemes: Intl.Segmenter | undefined;

/** Text for a one-line label: without bidi controls. */
export function labelText(text: string): string {
  return text.replace(BIDI_CONTROLS, '');
}

/** One line: line breaks and runs of spaces become one space, bidi controls go. */
function flatten(text: string): string {
  return labelText(text).replace(/\s+/g, ' ').trim();
}

/** The characters as the user sees them: an emoji with its modifiers or a flag is one, never split. */
function characters(text: string): string[] {
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return Array.from(graphemes.segment(text), (s) => s.segment);
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
  return chars.slice(0, cut).join('').replace(DANGLING, '') + ELLIPSIS;
}

/**
 * A title on one line of at most `max` characters (the ellipsis included): cut at a word
 * boundary with an ellipsis when longer, by characters in Chinese and Japanese text.
 */
export function cutTitle(text: string, max = TITLE_MAX): string {
  const flat = flatten(text);
  const chars = characters(flat);
  return chars.length <= max ? flat : cutAt(chars, max - 1);
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
  if (s.titleSource !== 'auto' || Array.from(title).length !== 50 || title.endsWith(ELLIPSIS)) return false;
  // With the first prompt at hand, the title was cut only if the prompt goes on.
  return s.firstPrompt ? flatten(s.firstPrompt).startsWith(title) && flatten(s.firstPrompt) !== title : true;
}

/** A session's title as displays show it ('' when it has none yet): stored titles of older versions cut mid-word are cut again. */
export function shownTitle(s: TitleFields): string {
  const title = labelText(s.title ?? '');
  if (!isOldCut(title, s)) return title;
  // Without the prompt the last word may be whole; dropping it is the safe side.
  return s.firstPrompt ? cutTitle(s.firstPrompt) : cutAt(characters(title), TITLE_MAX - 1);
}

/** A session's title, else the start of its first prompt, cut ('' when it has neither). */
export function sessionTitle(s: TitleFields): string {
  return shownTitle(s) || cutTitle(s.firstPrompt ?? '');
}

/** A session's name in a list, a tree or a quick pick. */
export function sessionLabel(s: TitleFields): string {
  return sessionTitle(s) || 'Untitled session';
}

/**
 * A fork's title: what it is and of which session ("Fork at turn 3 of Plan the notes", "Fork of
 * Plan the notes"). `taken` holds the titles of the source's other forks: a fork that would read
 * like one of them gets the first free number, up front where a narrow tree still shows it
 * ("Fork 2 at turn 3 of Plan the notes"), so two forks are never told apart by their time alone.
 */
export function forkTitle(sourceTitle: string, turn: number | null, taken: ReadonlySet<string> = new Set()): string {
  const title = (n: number) => `Fork${n > 1 ? ` ${n}` : ''}${turn === null ? '' : ` at turn ${turn}`} of ${cutTitle(sourceTitle)}`;
  let n = 1;
  while (taken.has(title(n))) n++;
  return title(n);
}
