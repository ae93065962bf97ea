/** Rows measured so far keep their height; unmeasured ones count as this (px). */
const ESTIMATE = 72;
/** Rows rendered above and below the visible part (px). */
const OVERSCAN = 800;
/** Within this distance of the bottom, new content keeps the view pinned to the end (px). */
const PIN_SLACK = 48;

interface Row<T> {
  readonly key: string;
  readonly item: T;
}

/**
 * A list that keeps only the rows near the visible part in the DOM: rows are measured once
 * rendered; the space of the others is held by two spacers. The view stays pinned to the end
 * while the user is there (a streaming answer follows), and an older page prepended keeps the
 * row the user looks at in place.
 */
export class VirtualList<T extends { readonly key: string }> {
  private rows: Row<T>[] = [];
  private readonly heights = new Map<string, number>();
  /** The element last rendered for a key, and the item it was rendered from. */
  private readonly rendered = new Map<string, { item: T; element: HTMLElement }>();
  private readonly top = document.createElement('div');
  private readonly body = document.createElement('div');
  private readonly bottom = document.createElement('div');
  private pinned = true;
  private frame = 0;
  private anchor: { key: string; delta: number } | undefined;
  private width = 0;

  constructor(
    private readonly scroller: HTMLElement,
    private readonly render: (item: T) => HTMLElement,
    /** Called when the user reaches the top of what is loaded. */
    private readonly onTop: () => void,
  ) {
    this.top.className = 'spacer';
    this.bottom.className = 'spacer';
    this.body.className = 'rows';
    scroller.append(this.top, this.body, this.bottom);
    scroller.addEventListener(
      'scroll',
      () => {
        this.pinned = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < PIN_SLACK;
        if (scroller.scrollTop < OVERSCAN / 2) this.onTop();
        this.schedule();
      },
      { passive: true },
    );
    // A card opened or closed changes its row's height: measure again.
    scroller.addEventListener('toggle', () => this.schedule(), true);
    new ResizeObserver(() => {
      if (scroller.clientWidth !== this.width) {
        this.width = scroller.clientWidth;
        this.heights.clear(); // line wrapping changed
      }
      this.schedule();
    }).observe(scroller);
  }

  /** Rows in the DOM now (for tests and the timing figures). */
  get renderedCount(): number {
    return this.body.childElementCount;
  }

  /** Shows these items; rows whose item object is unchanged are not re-rendered. */
  setItems(items: readonly T[], options: { keepAnchor?: boolean; toEnd?: boolean } = {}): void {
    if (options.keepAnchor) this.anchor = this.firstVisible();
    if (options.toEnd) this.pinned = true;
    this.rows = items.map((item) => ({ key: item.key, item }));
    const live = new Set(this.rows.map((r) => r.key));
    for (const key of this.rendered.keys()) if (!live.has(key)) this.rendered.delete(key);
    this.schedule();
  }

  /** Lays out now instead of at the next frame (after a snapshot, for a first paint). */
  flush(): void {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    this.layout();
  }

  /** The key of the row at the top of the view, to come back to it after a reload. */
  topKey(): string | undefined {
    return this.pinned ? undefined : this.firstVisible()?.key;
  }

  /** Is the row `key` among the items? */
  has(key: string): boolean {
    return this.rows.some((r) => r.key === key);
  }

  /** Shows the row `key` at the top (when it is loaded). */
  scrollToKey(key: string): void {
    if (!this.has(key)) return;
    this.pinned = false;
    this.anchor = { key, delta: 0 };
    this.schedule();
  }

  /** Renders every row again at the next layout: what a row shows changed, not its item (words marked or no longer). */
  redraw(): void {
    this.rendered.clear();
    this.schedule();
  }

  /** Scrolls to the first row loaded. */
  scrollToStart(): void {
    this.pinned = false;
    this.scroller.scrollTop = 0;
    this.schedule();
  }

  private schedule(): void {
    this.frame ||= requestAnimationFrame(() => {
      this.frame = 0;
      this.layout();
    });
  }

  private height(key: string): number {
    return this.heights.get(key) ?? ESTIMATE;
  }

  private offsets(): number[] {
    const out = new Array<number>(this.rows.length + 1);
    out[0] = 0;
    for (let i = 0; i < this.rows.length; i++) out[i + 1] = out[i]! + this.height(this.rows[i]!.key);
    return out;
  }

  /** The first row at the top of the view and how far the view starts below it. */
  private firstVisible(): { key: string; delta: number } | undefined {
    const offsets = this.offsets();
    const top = this.scroller.scrollTop;
    const i = Math.max(0, upperBound(offsets, top) - 1);
    const row = this.rows[i];
    return row ? { key: row.key, delta: top - offsets[i]! } : undefined;
  }

  private layout(): void {
    for (let pass = 0; pass < 3; pass++) {
      const offsets = this.offsets();
      const total = offsets[this.rows.length]!;
      if (this.anchor) {
        const i = this.rows.findIndex((r) => r.key === this.anchor!.key);
        if (i >= 0) this.scroller.scrollTop = offsets[i]! + this.anchor.delta;
      } else if (this.pinned) {
        this.scroller.scrollTop = total;
      }
      const viewTop = this.scroller.scrollTop;
      const viewBottom = viewTop + this.scroller.clientHeight;
      const start = Math.max(0, upperBound(offsets, viewTop - OVERSCAN) - 1);
      const end = Math.min(this.rows.length, upperBound(offsets, viewBottom + OVERSCAN));
      this.top.style.height = `${offsets[start]}px`;
      this.bottom.style.height = `${total - offsets[end]!}px`;
      const elements: HTMLElement[] = [];
      for (let i = start; i < end; i++) elements.push(this.element(this.rows[i]!));
      if (!sameChildren(this.body, elements)) this.body.replaceChildren(...elements);
      let changed = false;
      for (let i = start; i < end; i++) {
        const key = this.rows[i]!.key;
        const h = elements[i - start]!.offsetHeight;
        if (h > 0 && this.heights.get(key) !== h) {
          this.heights.set(key, h);
          changed = true;
        }
      }
      if (!changed) break;
    }
    if (this.pinned) this.scroller.scrollTop = this.scroller.scrollHeight;
    this.anchor = undefined;
  }

  private element(row: Row<T>): HTMLElement {
    const known = this.rendered.get(row.key);
    if (known && known.item === row.item) return known.element;
    const element = this.render(row.item);
    element.dataset.key = row.key;
    element.classList.add('row');
    this.rendered.set(row.key, { item: row.item, element });
    return element;
  }
}

/** The first index whose value is greater than `x` (values ascending). */
function upperBound(values: readonly number[], x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function sameChildren(parent: HTMLElement, elements: readonly HTMLElement[]): boolean {
  if (parent.childElementCount !== elements.length) return false;
  let i = 0;
  for (let c = parent.firstElementChild; c; c = c.nextElementSibling) if (c !== elements[i++]) return false;
  return true;
}
