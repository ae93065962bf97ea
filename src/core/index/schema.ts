import type { Database } from './sqlite';
import { TURN_SEARCH_SCHEMA } from './turnSearch';

/**
 * Bumped when the index's tables or what goes into them change; an older index is rebuilt, a
 * newer one is left alone. 2: usage rows carry the session whose own calls they are (each call
 * counted once), and the search text splits CJK text into characters. 3: each row keeps the fold
 * of its session's log (`fold_json`), so a writer goes on from it without reading the log again.
 * 4: one index per workspace, in the workspace's folder; the subagent count is a column. 5: the
 * file is used in place (SQLite's own pages and rollback journal) instead of loaded and saved
 * whole, so it carries no save generation; a row's state and fold are kept in `session_data`.
 * 6: the fold keeps every effective turn with where it lies in the log (the turn map), no longer
 * the turns before the last as totals. 7: the fold is no longer kept in the index but beside the
 * log (format/foldFile.ts), so a row does not grow with its session's turns. 8: search over
 * everything the turns said, a document per turn (`turn_fts`, `turn_docs`) and the files each
 * turn changed (`session_files`), in place of one document of title and prompts per session.
 * 9: the git branch a session's last turn ran on (`branch`), and every branch its turns ran on
 * (`session_branches`), for lists and searches by branch. 10: where a session pulled from a git
 * remote came from (`shared`), for the lists that mark or group such sessions. 11: an index of each
 * row's fingerprint (`sessions_fingerprints`), so that comparing the rows with the folders reads a
 * few pages instead of every row's (a row's last columns can lie past its long prompt, on pages of their own).
 */
export const SCHEMA_VERSION = 11;

/**
 * The digest of the schema a fresh index of this version has, as SQLite keeps it (indexFile.ts,
 * schemaDigestOf): an index file whose schema has it needs no fresh index made to compare with.
 * A unit test makes a fresh index and fails, naming the new digest, when the schema changes.
 */
export const FRESH_SCHEMA_DIGEST = 'd841c130fac723ebad197466129315332356cd879c9066089ab20030013abc16';

export const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  workspace_key TEXT NOT NULL,
  workspace_dir TEXT NOT NULL,
  title TEXT NOT NULL,
  title_source TEXT NOT NULL,
  status TEXT NOT NULL,
  error TEXT,
  kind TEXT NOT NULL,
  visibility TEXT NOT NULL,
  archived INTEGER NOT NULL,
  forked_from TEXT,
  forked_turn INTEGER,
  model_provider TEXT,
  model_id TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  turn_count INTEGER NOT NULL,
  message_count INTEGER NOT NULL,
  first_prompt TEXT NOT NULL,
  last_preview TEXT NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cache_read INTEGER NOT NULL,
  cache_write INTEGER NOT NULL,
  reasoning_tokens INTEGER NOT NULL,
  cost REAL NOT NULL,
  log_bytes INTEGER NOT NULL,
  state_mtime REAL NOT NULL,
  subagents INTEGER NOT NULL,
  branch TEXT, -- the git branch of the last turn that recorded one
  shared TEXT -- state.json's shared (JSON) of a session pulled from a git remote; null for this machine's
);
-- What a row's summary is read back from with the log's fold (state.json's content), apart
-- from the listed columns so that a list, a search or a count reads dense rows, not these.
CREATE TABLE session_data (
  seq INTEGER PRIMARY KEY,
  state_json TEXT NOT NULL
);
-- The git branches a session's effective turns ran on (their turn_begin's branch), each once.
CREATE TABLE session_branches (
  session_seq INTEGER NOT NULL,
  branch TEXT NOT NULL,
  PRIMARY KEY (session_seq, branch)
) WITHOUT ROWID;
CREATE INDEX session_branches_by_branch ON session_branches(branch);
CREATE INDEX sessions_by_workspace ON sessions(workspace_key, archived, updated_at DESC);
CREATE INDEX sessions_by_time ON sessions(archived, updated_at DESC);
-- What each command's check of the folders reads (indexRows.ts, fingerprints), without the rows.
CREATE INDEX sessions_fingerprints ON sessions(workspace_key, id, state_mtime, log_bytes);
CREATE TABLE usage (
  session_id TEXT NOT NULL,
  origin TEXT NOT NULL, -- the session that made these calls; '' for session_id itself
  day TEXT NOT NULL,
  provider TEXT NOT NULL,
  model TEXT NOT NULL,
  calls INTEGER NOT NULL,
  input INTEGER NOT NULL,
  output INTEGER NOT NULL,
  cache_read INTEGER NOT NULL,
  cache_write INTEGER NOT NULL,
  reasoning INTEGER NOT NULL,
  cost REAL NOT NULL,
  PRIMARY KEY (session_id, origin, day, provider, model)
);
`;

/** Creates the tables in an empty database and records the schema version. */
export function createSchema(db: Database): void {
  db.run(SCHEMA);
  db.run(TURN_SEARCH_SCHEMA);
  db.run('INSERT INTO meta(key, value) VALUES (?, ?)', ['schema_version', String(SCHEMA_VERSION)]);
}

/** The schema version recorded in a database, or undefined when it has no meta table. */
export function schemaVersionOf(db: Database): number | undefined {
  const result = db.exec("SELECT value FROM meta WHERE key = 'schema_version'");
  const value = result[0]?.values[0]?.[0];
  return value === undefined ? undefined : Number(value);
}
