import type { SessionSummary } from '../format/summary';
import type { SessionState } from '../format/sessionState';
import * as rows from './indexRows';
import { queryAll, type Database } from './sqlite';
import { turnsOfFile, type FileTurn, type SearchHit } from './turnSearch';
import { sessionUsage, usageReport, type SessionUsage, type UsageOptions, type UsageReport } from './usageRows';

/** What can be asked of the index: lists, counts, search and usage, all read from this process's copy. */
export abstract class IndexQueries {
  /** Runs `query` on the database this process serves from (recovering from damage SQLite reports). */
  protected abstract read<T>(query: (db: Database) => T): T;

  /** The folder of a session of this index (where its log and the log's fold are). */
  protected abstract sessionDir(workspaceKey: string, id: string): string;

  /** Sessions matching `filter`, most recently updated first. */
  list(filter: rows.ListFilter): rows.SessionRow[] {
    return this.read((db) => rows.listRows(db, filter));
  }

  /** The keys of the sessions `list` would return, without their rows. */
  listKeys(filter: rows.ListFilter): rows.RowKey[] {
    return this.read((db) => rows.listKeys(db, filter));
  }

  /** The sessions `search` would return, without their rows, each with its matching turns. */
  searchHits(text: string, filter: rows.SearchFilter): SearchHit[] {
    return this.read((db) => rows.searchSessions(db, text, filter));
  }

  /** The turns that changed or committed the file at `absolutePath` (see turnsOfFile). */
  turnsOfFile(absolutePath: string): FileTurn[] {
    return this.read((db) => turnsOfFile(db, absolutePath));
  }

  /** The rows of these sessions that the index has. */
  rowsOf(ids: readonly string[]): rows.SessionRow[] {
    return this.read((db) => rows.rowsOf(db, ids));
  }

  /** How many sessions match `filter`. */
  count(filter: rows.ListFilter): number {
    return this.read((db) => rows.countRows(db, filter));
  }

  /** A session's row, if the index has it. */
  get(id: string): rows.SessionRow | undefined {
    return this.read((db) => rows.getRow(db, id));
  }

  /** What the index holds about a session, as a summary. */
  summaryOf(id: string): SessionSummary | undefined {
    return this.read((db) => rows.readSummary(db, id, (workspaceKey, sessionId) => this.sessionDir(workspaceKey, sessionId)));
  }

  /** A session's state as the index keeps it: a summary's without reading its log's fold. */
  stateOf(id: string): SessionState | undefined {
    return this.read((db) => rows.readState(db, id));
  }

  /**
   * Session ids that begin with `prefix` (every workspace, archived and hidden ones too), in
   * order, at most `limit`: a range over the id's unique index, for ids typed shortened.
   */
  idsStartingWith(prefix: string, limit: number): string[] {
    // Ids are ASCII letters, digits and `_`, all below DEL: [prefix, prefix + DEL) holds exactly the ids that begin with it.
    return this.read((db) =>
      queryAll<{ id: string }>(db, 'SELECT id FROM sessions WHERE id >= ? AND id < ? ORDER BY id LIMIT ?', [prefix, `${prefix}\u007f`, limit]).map((r) => r.id),
    );
  }

  /** Sessions whose title or turns say every word of `text` (full-text search), within `filter`. */
  search(text: string, filter: rows.SearchFilter): rows.SessionRow[] {
    return this.read((db) => rows.searchRows(db, text, filter));
  }

  /** The titles of the sessions forked from `sourceId` in its workspace (archived and hidden ones too). */
  forkTitles(workspaceKey: string, sourceId: string): string[] {
    return this.read((db) => rows.forkTitles(db, workspaceKey, sourceId));
  }

  /** The workspaces that have sessions (with how many), most recently updated first. */
  workspaces(): rows.WorkspaceRow[] {
    return this.read((db) => rows.listWorkspaces(db));
  }

  /** Usage of a workspace (every workspace when absent), each model call counted once. */
  usageReport(workspaceKey?: string, options?: UsageOptions): UsageReport {
    return this.read((db) => usageReport(db, workspaceKey, options));
  }

  /** A session's own calls, and those its log inherited from the session it was forked from. */
  sessionUsage(id: string): SessionUsage {
    return this.read((db) => sessionUsage(db, id));
  }
}
