/** Longest run without a break opportunity that is laid out as it is (characters). */
const LONGEST_RUN = 200;
/** Length of the pieces a longer run is cut into. */
const PIECE = 64;
const RUN = new RegExp(`\\S{${LONGEST_RUN + 1},}`);

/**
 * Lets very long words wrap cheaply: Chromium takes seconds to wrap one 200 KB word of a text
 * node (it shapes the whole run for every line), but milliseconds when the word comes in pieces
 * with <wbr> between them. The text, and what is copied, stay the same. Code blocks (<pre>)
 * scroll sideways instead, so their text is left alone.
 */
export function breakLongWords(root: HTMLElement): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const long: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (RUN.test(node.nodeValue ?? '') && !node.parentElement?.closest('pre')) long.push(node as Text);
  }
  for (const node of long) {
    const text = node.nodeValue ?? '';
    const parts: Node[] = [];
    for (let i = 0; i < text.length; i += PIECE) {
      if (i > 0) parts.push(document.createElement('wbr'));
      parts.push(document.createTextNode(text.slice(i, i + PIECE)));
    }
    node.replaceWith(...parts);
  }
}
