/** A random tag for this page; every id the page makes carries it. */
export function pageTag(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(6)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Ids for what a page sends (a prompt's request id is its message key, so the host takes two
 * prompts with one id for one). The side bar's Chat view and an editor tab send to the same
 * session, so time and a counter are not enough: each page's ids carry its own tag.
 */
export class RequestIds {
  private counter = 0;

  constructor(
    private readonly tag: string = pageTag(),
    private readonly now: () => number = Date.now,
  ) {}

  next(kind: 'req' | 'side'): string {
    return `${kind}-${this.tag}-${this.now().toString(36)}-${(this.counter++).toString(36)}`;
  }
}
