/** Characters that change how text reads without being seen: bidi controls and zero-width characters. */
export const INVISIBLE = /[\u061C\u200B\u200E\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

/**
 * Text as a DOM fragment in which each invisible character shows as its code point (⟨U+202E⟩):
 * what a tool card or an approval says is what runs, not what a bidi override makes it look like.
 */
export function revealInvisible(text: string): DocumentFragment {
  const fragment = document.createDocumentFragment();
  let last = 0;
  for (const match of text.matchAll(INVISIBLE)) {
    if (match.index > last) fragment.append(text.slice(last, match.index));
    const code = `U+${match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    const mark = document.createElement('span');
    mark.className = 'invisible-char';
    mark.title = `Invisible character ${code}`;
    mark.textContent = `⟨${code}⟩`;
    fragment.append(mark);
    last = match.index + match[0].length;
  }
  if (last < text.length) fragment.append(text.slice(last));
  return fragment;
}
