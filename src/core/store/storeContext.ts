import type { StoreLayout } from '../format/layout';
import type { SessionState, StoredState } from '../format/sessionState';
import type { SessionSummary } from '../format/summary';
import type { SessionIndex } from '../index/sessionIndex';
import type { Logger } from '../logger';

/** How a change of state.json is made: with the writer's summary for the index, under its lease's fence. */
export interface StateUpdateOptions {
  /** The whole index row to write, from the new state and state.json's mtime (else only the row's state changes). */
  summary?: (state: StoredState, stateMtime: number) => SessionSummary;
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
  /** Session `id` as Braid shows it (state.json and its log's fold); a broken state.json is rebuilt from the logs and written back. */
  get(id: string): SessionState;
  /** A session folder's summary: a live writer's, the index row while current, else the folder read again (`live: false` skips the writer's). */
  summaryAt(dir: string, options?: { live?: boolean }): SessionSummary;
  /** The index row of a session folder while it is current with the folder. */
  currentRow(dir: string): SessionSummary | undefined;
  /** Changes state.json under the session's lock and updates the index row; returns the session as it is now. */
  update(id: string, change: (state: StoredState) => StoredState, options?: StateUpdateOptions): Promise<SessionState>;
  /** Told by a writer as it opens and closes, so reads of its session come from its memory. */
  trackWriter(writer: LiveWriter, open: boolean): void;
}

/** A writer open in this process: its summary is current without reading the disk. */
export interface LiveWriter {
  readonly id: string;
  readonly summary: SessionSummary;
  /** Takes a change of state.json made beside it in this process (a rename, an archive); returns its summary with it. */
  stateChanged(stored: StoredState, stateMtime: number): SessionSummary;
}
