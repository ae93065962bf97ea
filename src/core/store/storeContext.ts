import type { StoreLayout } from '../format/layout';
import type { SessionState } from '../format/sessionState';
import type { SessionSummary } from '../format/summary';
import type { SessionIndex } from '../index/sessionIndex';
import type { Logger } from '../logger';

/** How a change of state.json is made: with the writer's summary for the index, under its lease's fence. */
export interface StateUpdateOptions {
  /** The whole index row to write, from the new state and state.json's mtime (else only the row's state changes). */
  summary?: (state: SessionState, stateMtime: number) => SessionSummary;
  /** The lease holder's fence: it runs under the session's lock right before the file is replaced. */
  fence?: () => void;
}

/**
 * What the store's parts (the writer, fork, rewind and its journal) use of the store: its layout,
 * index and logger, and finding, reading and changing a session's state. SessionStore implements it;
 * the parts take this instead of the store so that the store can import them without a cycle.
 */
export interface StoreContext {
  readonly layout: StoreLayout;
  readonly index: SessionIndex;
  readonly logger: Logger;
  /** The folder of session `id`; throws SessionNotFoundError when there is none. */
  locate(id: string): string;
  /** The state of session `id`; a broken state.json is rebuilt from the logs and written back. */
  get(id: string): SessionState;
  /** Changes state.json under the session's lock and updates the index row; returns the new state. */
  update(id: string, change: (state: SessionState) => SessionState, options?: StateUpdateOptions): Promise<SessionState>;
}
