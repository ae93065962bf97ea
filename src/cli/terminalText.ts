/**
 * Text the CLI prints for a terminal. Titles, prompts, model output and error texts come from
 * outside; a terminal acts on some characters instead of showing them (ESC starts colour,
 * cursor, window-title and clipboard sequences; BEL, CR and backspace hide or rewrite what came
 * before), and bidi controls reorder what follows. Each such character is printed as its code
 * point, ⟨U+001B⟩, the form the Chat view uses for invisible characters.
 */
import { textStart } from '../core/format/textStart';

/** C0 controls but tab and newline, DEL, C1 controls, and the bidi and zero-width characters the Chat view reveals. */
// eslint-disable-next-line no-control-regex -- control characters are what this pattern finds
const UNSAFE = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

const codePoint = (ch: string) => ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');

/** Multi-line text as it may reach a terminal: newlines and tabs stay, a CRLF line end becomes a newline, anything else unsafe is shown as ⟨U+XXXX⟩. */
export function terminalSafe(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(UNSAFE, (ch) => `⟨U+${codePoint(ch)}⟩`);
}

const LINE_BREAKS = /\r?\n|[\t\u2028\u2029]/g;

/** One line of a listing or a message (a title, a path, a reason): line breaks and tabs become spaces, so it cannot start a line of its own. */
export function oneLine(text: string): string {
  return terminalSafe(text.replace(LINE_BREAKS, ' '));
}

/**
 * The first `max` units of a long text (a prompt, a tool's arguments) as `oneLine` shows them:
 * cut before its characters are shown as code points, never in half of a pair, and only the
 * text's start is read.
 */
export function shortLine(text: string, max: number): string {
  if (text.length <= max) return oneLine(text);
  // One unit more, so that a CRLF at the cut still counts as one line break.
  return terminalSafe(textStart(textStart(text, max + 1).replace(LINE_BREAKS, ' '), max));
}

/**
 * JSON for `--json`: what JSON.stringify writes, with the characters it leaves raw (DEL, C1
 * controls, bidi and zero-width characters) escaped as \uXXXX. The same value, and nothing a
 * terminal acts on.
 */
export function jsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(UNSAFE, (ch) => `\\u${codePoint(ch).toLowerCase()}`);
}
