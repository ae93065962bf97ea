import { MAX_OLDER_PAGE } from '../../src/protocol/messages';

/** Messages the first older page asks for: as many as the newest page the host sends. */
export const FIRST_OLDER_PAGE = 80;
/** Reaching the top again within this long after an older page arrived is paging back fast (ms). */
export const FAST_RETURN_MS = 1_000;

/**
 * How many messages to ask for when the user reaches the top of what is loaded. A user reading
 * back gets pages of 80; one who comes back to the top within a second of the last page (holding
 * the scroll bar at the top, pressing Home again) is paging back fast, and each such page is twice
 * the one before, up to MAX_OLDER_PAGE: the start of a 5,000-message session is six pages away,
 * not sixty-two. A pause starts again at 80. No DOM; times come from the caller.
 */
export class OlderPageSize {
  private size = FIRST_OLDER_PAGE;
  private arrivedAt: number | undefined;

  /** The size of the page to ask for now (`now` in ms, any monotonic clock). */
  next(now: number): number {
    const fast = this.arrivedAt !== undefined && now - this.arrivedAt <= FAST_RETURN_MS;
    this.size = fast ? Math.min(this.size * 2, MAX_OLDER_PAGE) : FIRST_OLDER_PAGE;
    this.arrivedAt = undefined;
    return this.size;
  }

  /** The page asked for arrived at `now`. */
  arrived(now: number): void {
    this.arrivedAt = now;
  }

  /** Another session (or the same one afresh) is shown: its first older page is small again. */
  reset(): void {
    this.size = FIRST_OLDER_PAGE;
    this.arrivedAt = undefined;
  }
}
