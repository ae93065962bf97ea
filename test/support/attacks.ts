// Type-checked with the DOM library by tsconfig.e2e.json (its functions run in the page).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Locator } from 'playwright-core';

/**
 * A listener on 127.0.0.1 that model output points its images, frames, styles and pings at:
 * any request it receives is content that left the Chat view.
 */
export class LeakServer {
  readonly requests: string[] = [];
  private readonly server = http.createServer((req, res) => {
    this.requests.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<script>document.body.dataset.pwned = "leak-server"</script>');
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Runs in the page of `root`: the characters of the text node under it holding `marker`, in order, step rightwards on screen. */
export async function readsLeftToRight(root: Locator, marker: string): Promise<boolean> {
  return root.evaluate((element, mark) => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at = node.textContent!.lastIndexOf(mark);
      if (at < 0) continue;
      const lefts = Array.from(mark, (_c, i) => {
        const range = document.createRange();
        range.setStart(node!, at + i);
        range.setEnd(node!, at + i + 1);
        return range.getBoundingClientRect().left;
      });
      return lefts.every((left, i) => i === 0 || left > lefts[i - 1]!);
    }
    throw new Error(`${mark} is not there`);
  }, marker);
}

/** Runs in the Chat page: listens for CSP violations from here on. */
export async function watchViolations(body: Locator): Promise<void> {
  await body.evaluate(() => {
    const w = window as unknown as { __violations?: string[] };
    if (w.__violations) return;
    w.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__violations!.push(`${e.violatedDirective} ${e.blockedURI}`));
  });
}

/** What the page says about itself after an attack. */
export interface PageReport {
  readonly pwned: string | null;
  readonly violations: readonly string[];
  /** Elements or attributes in the transcript that must not be there. */
  readonly forbidden: readonly string[];
  /** Elements drawn outside the message or card box they belong to, or boxes outside the transcript. */
  readonly outside: readonly string[];
  /** Page-level and transcript-level horizontal overflow (px). */
  readonly overflowX: { page: number; transcript: number };
  /** The composer's input and the header's model picker are the topmost element at their centre. */
  readonly chromeOnTop: { input: boolean; picker: boolean };
}

/**
 * Runs in the Chat page: the inspection after an attack. Forbidden are tags outside what the
 * sanitizer allows, any event handler, style, src, id, name, data- or aria- attribute in model
 * content, and hrefs outside http(s) and mailto.
 */
export async function inspectPage(body: Locator): Promise<PageReport> {
  return body.evaluate(() => {
    const describe = (e: Element) =>
      `${e.tagName.toLowerCase()}${e.className && typeof e.className === 'string' ? `.${e.className.replace(/\s+/g, '.')}` : ''} ${e.outerHTML.slice(0, 120)}`;
    const transcript = document.querySelector('[data-role="transcript"]') as HTMLElement;
    const forbidden: string[] = [];
    const contentTags = new Set([
      'P',
      'BR',
      'HR',
      'H1',
      'H2',
      'H3',
      'H4',
      'H5',
      'H6',
      'STRONG',
      'EM',
      'DEL',
      'CODE',
      'PRE',
      'BLOCKQUOTE',
      'UL',
      'OL',
      'LI',
      'A',
      'TABLE',
      'THEAD',
      'TBODY',
      'TR',
      'TH',
      'TD',
      'SPAN',
      'INPUT',
      'BUTTON',
      'WBR',
    ]);
    for (const root of Array.from(transcript.querySelectorAll('.markdown'))) {
      for (const e of Array.from(root.querySelectorAll('*'))) {
        if (!contentTags.has(e.tagName)) forbidden.push(`tag ${describe(e)}`);
        if (e.tagName === 'INPUT' && !((e as HTMLInputElement).type === 'checkbox' && (e as HTMLInputElement).disabled)) forbidden.push(`input ${describe(e)}`);
        if (e.tagName === 'BUTTON' && e.className !== 'copy-code') forbidden.push(`button ${describe(e)}`);
        for (const attr of Array.from(e.attributes)) {
          const name = attr.name.toLowerCase();
          const ours = e.tagName === 'BUTTON' && ['class', 'type', 'aria-label'].includes(name);
          if (ours) continue;
          if (/^(on|data-|aria-)|^(style|src|srcset|srcdoc|action|formaction|ping|background|poster|id|name|target|xlink:href|autofocus)$/.test(name))
            forbidden.push(`attribute ${name} on ${describe(e)}`);
          if (name === 'href' && !/^(https?|mailto):/i.test(attr.value)) forbidden.push(`href ${attr.value.slice(0, 60)}`);
          if (name === 'class' && !(e.tagName === 'CODE' && /^language-[\w+#-]+$/.test(attr.value)) && !(e.tagName === 'SPAN' && attr.value === 'link-target'))
            forbidden.push(`class ${describe(e)}`);
        }
      }
    }
    for (const e of Array.from(
      document.querySelectorAll(
        '#app script, #app style, #app link, #app meta, #app base, #app iframe, #app object, #app embed, #app form, #app img, #app svg, #app video, #app audio, #app math, #app template, #app noscript',
      ),
    ))
      forbidden.push(`element ${describe(e)}`);
    for (const e of Array.from(document.head.querySelectorAll('base, meta[http-equiv="refresh"]'))) forbidden.push(`in head ${describe(e)}`);

    // Each element's rectangle, cut by the scrolling ancestors inside its box, stays in the box.
    const outside: string[] = [];
    const area = transcript.getBoundingClientRect();
    const slack = 1;
    for (const box of Array.from(transcript.querySelectorAll<HTMLElement>('.message, .card, .turn-status, .notice'))) {
      const b = box.getBoundingClientRect();
      if (b.left < area.left - slack || b.right > area.right + slack)
        outside.push(`box ${describe(box)} spans ${Math.round(b.left)}..${Math.round(b.right)} in ${Math.round(area.left)}..${Math.round(area.right)}`);
      for (const e of Array.from(box.querySelectorAll('*'))) {
        // The content of a closed card is not drawn (Chromium keeps stale boxes for it).
        const closed = e.closest('details:not([open])');
        if (closed && box.contains(closed) && !e.closest('summary')) continue;
        if (e.getClientRects().length === 0) continue;
        let r = e.getBoundingClientRect();
        if (r.width === 0 && r.height === 0) continue;
        for (let p = e.parentElement; p && p !== box; p = p.parentElement) {
          const style = getComputedStyle(p);
          if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
          const c = p.getBoundingClientRect();
          r = new DOMRect(
            Math.max(r.left, c.left),
            Math.max(r.top, c.top),
            Math.max(0, Math.min(r.right, c.right) - Math.max(r.left, c.left)),
            Math.max(0, Math.min(r.bottom, c.bottom) - Math.max(r.top, c.top)),
          );
        }
        if (r.width === 0 || r.height === 0) continue;
        if (r.left < b.left - slack || r.right > b.right + slack || r.top < b.top - slack || r.bottom > b.bottom + slack) {
          outside.push(
            `${describe(e)} at ${Math.round(r.left)},${Math.round(r.top)}..${Math.round(r.right)},${Math.round(r.bottom)} outside ${Math.round(b.left)},${Math.round(b.top)}..${Math.round(b.right)},${Math.round(b.bottom)}`,
          );
        }
      }
    }
    const page = document.scrollingElement as HTMLElement;
    const onTop = (selector: string) => {
      const target = document.querySelector(selector) as HTMLElement;
      const r = target.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return r.width > 0 && r.height > 0 && hit !== null && target.contains(hit);
    };
    const w = window as unknown as { __violations?: string[]; __pwned?: string };
    return {
      pwned: document.body.dataset.pwned ?? w.__pwned ?? null,
      violations: w.__violations ?? [],
      forbidden,
      outside,
      overflowX: { page: page.scrollWidth - page.clientWidth, transcript: transcript.scrollWidth - transcript.clientWidth },
      chromeOnTop: { input: onTop('[data-role="input"]'), picker: onTop('[data-role="model-picker"]') },
    };
  });
}
