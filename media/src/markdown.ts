import DOMPurify from 'dompurify';
import { Marked, type Tokens } from 'marked';
import { INVISIBLE } from './invisible';
import { breakLongWords } from './longWords';

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * Markdown only: HTML a model writes is shown as the text it is, never interpreted (a tag
 * explained in prose stays readable, and no markup can hide the text after it); images are not
 * loaded but shown as a link to their address.
 */
const parser = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      const text = escapeHtml(token.text);
      return token.block ? `<p>${text.trim().replace(/\n/g, '<br>')}</p>\n` : text;
    },
    image(token: Tokens.Image & { inLink?: boolean }): string {
      const alt = token.tokens ? this.parser.parseInline(token.tokens, this.parser.textRenderer) : token.text;
      const text = escapeHtml(`Image: ${alt || token.href}`);
      return token.inLink ? text : `<a href="${escapeHtml(token.href)}">${text}</a>`;
    },
  },
  // An image inside a link is its text (a link in a link would split in two).
  walkTokens(token) {
    if (token.type !== 'link') return;
    for (const child of token.tokens ?? []) if (child.type === 'image') (child as Tokens.Image & { inLink?: boolean }).inLink = true;
  },
});

/** Tags and attributes the markdown above may produce; everything else is dropped. */
const SANITIZE = {
  ALLOWED_TAGS: [
    'p',
    'br',
    'hr',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'strong',
    'em',
    'del',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'input',
  ],
  ALLOWED_ATTR: ['href', 'title', 'class', 'type', 'checked', 'disabled', 'start', 'align'],
  ALLOWED_URI_REGEXP: /^(?:https?|mailto):/i,
  // data- and aria- attributes could pose as the page's own (data-role="stop", aria-label).
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
};

// A class could dress text up as the page's own UI (an approval card, a button): only a code
// block's language survives. An input is only ever a task list's disabled checkbox.
DOMPurify.addHook('uponSanitizeAttribute', (node, data) => {
  if (data.attrName === 'class' && !(node.nodeName === 'CODE' && /^language-[\w+#.-]+$/.test(data.attrValue))) data.keepAttr = false;
});
DOMPurify.addHook('afterSanitizeAttributes', (node) => {
  if (node.nodeName !== 'INPUT') return;
  if ((node as HTMLInputElement).type !== 'checkbox') node.remove();
  else node.setAttribute('disabled', '');
});

/**
 * Markdown from a model as safe HTML: parsed with marked (raw HTML escaped), then sanitized with
 * DOMPurify so no script, event handler, style or foreign URL scheme survives.
 */
export function markdownToSafeHtml(text: string): string {
  const html = parser.parse(text, { async: false });
  return DOMPurify.sanitize(html, SANITIZE) as string;
}

const BLOCKS = 'p, li, h1, h2, h3, h4, h5, h6, blockquote, th, td';
const URL_LIKE = /^[a-z][\w+.-]*:\/\/\S+$|^(?:www\.)?[\w-]+(?:\.[\w-]+)+(?:[/:?#]\S*)?$/i;

function hostOf(text: string): string | undefined {
  try {
    return new URL(/^[a-z][\w+.-]*:/i.test(text) ? text : `https://${text}`).host;
  } catch {
    return undefined;
  }
}

/**
 * A link tells where it goes: its title is the real address, and when its text looks like another
 * address or hides characters (bidi overrides, zero-width), the real host shows beside it.
 */
function showTarget(link: HTMLAnchorElement): void {
  const real = link.href;
  link.title = real;
  const text = (link.textContent ?? '').trim();
  const visible = text.replace(INVISIBLE, '');
  const disguised = visible !== text || (URL_LIKE.test(visible) && hostOf(visible) !== link.host);
  if (!disguised || !link.host) return;
  const target = document.createElement('span');
  target.className = 'link-target';
  target.textContent = `(${link.host})`;
  link.after(target);
}

/** Renders markdown into an element, adding a Copy button to each code block. */
export function renderMarkdown(target: HTMLElement, text: string): void {
  target.innerHTML = markdownToSafeHtml(text);
  // Each paragraph takes its own direction (an Arabic line reads right to left) and isolates its bidi controls.
  for (const block of Array.from(target.querySelectorAll(BLOCKS))) block.setAttribute('dir', 'auto');
  for (const link of Array.from(target.querySelectorAll<HTMLAnchorElement>('a[href]'))) showTarget(link);
  breakLongWords(target);
  for (const pre of Array.from(target.querySelectorAll('pre'))) {
    const button = document.createElement('button');
    button.className = 'copy-code';
    button.type = 'button';
    button.textContent = 'Copy';
    button.setAttribute('aria-label', 'Copy code');
    button.addEventListener('click', () => {
      void navigator.clipboard.writeText(pre.querySelector('code')?.textContent ?? pre.textContent ?? '');
      button.textContent = 'Copied';
      setTimeout(() => (button.textContent = 'Copy'), 1500);
    });
    pre.prepend(button);
  }
}
