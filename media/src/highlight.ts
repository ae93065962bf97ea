// The searched words marked in a rendered entry (the turn a search result opened), found in its
// text as wordMatch.ts finds them.
import { markedPieces, type Piece } from './wordMatch';

/** The parts of a rendered entry that show what was said (not its labels and buttons): only their text is marked. */
const SAID = '.prompt-text, .markdown, .thinking-text, .tool-summary, .tool-args, .tool-result, .diff, .injected-context-text';

/**
 * Wraps each run of `root`'s said text that matches `pattern` in a <mark>. Only text nodes are
 * split and only `textContent` is set, so neither the text nor the words can become markup.
 */
export function markWords(root: HTMLElement, pattern: RegExp): void {
  const texts = new Set<Text>();
  for (const part of [root, ...Array.from(root.querySelectorAll<HTMLElement>(SAID))]) {
    if (!part.matches(SAID)) continue;
    const walker = document.createTreeWalker(part, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) if (!node.parentElement?.closest('button')) texts.add(node as Text);
  }
  for (const node of texts) {
    const pieces = markedPieces(node.data, pattern);
    if (pieces.some((p) => p.marked)) node.replaceWith(...pieces.map(pieceNode));
  }
}

function pieceNode(piece: Piece): Node {
  if (!piece.marked) return document.createTextNode(piece.text);
  const mark = document.createElement('mark');
  mark.textContent = piece.text;
  return mark;
}

/** Opens the closed sections (a tool card, thinking, arguments) that hide `mark`: a summary line shows without opening. */
export function uncover(mark: Element): void {
  for (let d = mark.closest('details'); d; d = d.parentElement?.closest('details') ?? null) {
    if (!d.open && !d.querySelector(':scope > summary')?.contains(mark)) d.open = true;
  }
}
