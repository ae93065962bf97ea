import DOMPurify from 'dompurify';
import { marked } from 'marked';

marked.setOptions({ gfm: true, breaks: false });

/** Tags and attributes a model's markdown may produce; everything else is dropped. */
const SANITIZE = {
  ALLOWED_TAGS: ['p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'strong', 'em', 'del', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'span', 'input'],
  ALLOWED_ATTR: ['href', 'title', 'class', 'type', 'checked', 'disabled', 'start', 'align'],
  ALLOWED_URI_REGEXP: /^(?:https?|mailto):/i,
};

/**
 * Markdown from a model as safe HTML: parsed with marked, then sanitized with DOMPurify so no
 * script, event handler, style or foreign URL scheme survives; images are not rendered at all.
 */
export function markdownToSafeHtml(text: string): string {
  const html = marked.parse(text, { async: false }) as string;
  return DOMPurify.sanitize(html, SANITIZE) as string;
}

/** Renders markdown into an element, adding a Copy button to each code block. */
export function renderMarkdown(target: HTMLElement, text: string): void {
  target.innerHTML = markdownToSafeHtml(text);
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
