import path from 'node:path';
import { isObject, text } from './messages';
import { DigestSink, type SourceDigest } from './sourceLines';
import { childPath, readSource, SourceRefusedError } from '../fs/sourceFile';
import { filesUnder } from './findFiles';
import type { SourceDatabases } from './sourceDatabase';
import type { FileReport } from './source';

// The three places opencode's sessions are read from: its SQLite database (`opencode.db`, 1.2
// and later: tables `session`, `message` and `part`, a message's and a part's JSON in their
// `data` column without the ids the columns hold), the JSON files of its older storage folder
// (`session/<project>/<id>.json`, `message/<session>/<id>.json`, `part/<message>/<id>.json`),
// and the file `opencode export <id>` writes (`{info, messages: [{info, parts}]}`).

type Rec = Record<string, unknown>;

/** One message with its parts, in order. */
export interface StoredMessage {
  readonly info: Rec;
  readonly parts: Rec[];
}

/** A session as one of the three stores holds it: its info, its messages read on demand, and the digest of what they are. */
export interface OpencodeSession {
  readonly info: Rec;
  readonly digest: SourceDigest;
  messages(report: FileReport): Promise<StoredMessage[]>;
}

/** A JSON file of opencode's (an info, a part, an export) is at most this large. */
const MAX_JSON = 256 << 20;

export function readJsonFile(file: string, root: string, report: FileReport, digest?: DigestSink): Rec | null {
  let bytes: Buffer;
  try {
    bytes = readSource(file, root, MAX_JSON);
  } catch (err) {
    report.skip(err instanceof SourceRefusedError ? `files not read (${err.message})` : 'files that could not be read');
    return null;
  }
  digest?.update(bytes);
  try {
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    if (isObject(value)) return value;
  } catch {
    // reported below
  }
  report.skip('files that are not JSON objects');
  return null;
}

const createdOf = (info: Rec): number => {
  const time = isObject(info.time) ? info.time.created : undefined;
  return typeof time === 'number' && Number.isFinite(time) ? time : 0;
};

/** Messages in the order opencode shows them: by creation time, then id (ids sort by time). */
export function inOrder(messages: StoredMessage[]): StoredMessage[] {
  return messages.sort((a, b) => createdOf(a.info) - createdOf(b.info) || (text(a.info.id) < text(b.info.id) ? -1 : 1));
}

// --- the database -------------------------------------------------------------------------

/** The session ids a database holds, each with its parent's. */
export async function databaseSessions(databases: SourceDatabases, file: string): Promise<Array<{ id: string; parentId: string | null }>> {
  const rows = await databases.query<{ id: string; parent_id: string | null }>(file, 'SELECT id, parent_id FROM session ORDER BY time_created, id');
  return rows.map((r) => ({ id: String(r.id), parentId: typeof r.parent_id === 'string' ? r.parent_id : null }));
}

interface SessionRow {
  id: string;
  parent_id: string | null;
  directory: string;
  title: string;
  time_created: number;
  time_updated: number;
}

/** A session of database `file`; null when it holds no such session. */
export async function databaseSession(databases: SourceDatabases, file: string, id: string): Promise<OpencodeSession | null> {
  const [row] = await databases.query<SessionRow>(file, 'SELECT id, parent_id, directory, title, time_created, time_updated FROM session WHERE id = ?', [id]);
  if (!row) return null;
  const info: Rec = {
    id: row.id,
    ...(typeof row.parent_id === 'string' ? { parentID: row.parent_id } : {}),
    directory: row.directory,
    title: row.title,
    time: { created: row.time_created, updated: row.time_updated },
  };
  // The rows are read once for the digest and kept: the conversion reads the same ones.
  const messageRows = await databases.query<{ id: string; data: string }>(file, 'SELECT id, data FROM message WHERE session_id = ? ORDER BY time_created, id', [
    id,
  ]);
  const partRows = await databases.query<{ id: string; message_id: string; data: string }>(
    file,
    'SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id',
    [id],
  );
  const digest = new DigestSink();
  for (const r of [...messageRows, ...partRows]) digest.update(Buffer.from(`${r.id}\n${r.data}\n`));
  return {
    info,
    digest: digest.finish(),
    messages: async (report) => {
      const parts = new Map<string, Rec[]>();
      for (const r of partRows) {
        const part = rowJson(r.data, report, 'parts');
        if (part) parts.set(r.message_id, [...(parts.get(r.message_id) ?? []), { ...part, id: r.id, messageID: r.message_id }]);
      }
      return inOrder(
        messageRows.flatMap((r) => {
          const message = rowJson(r.data, report, 'messages');
          return message ? [{ info: { ...message, id: r.id, sessionID: id }, parts: parts.get(r.id) ?? [] }] : [];
        }),
      );
    },
  };
}

function rowJson(data: unknown, report: FileReport, what: string): Rec | null {
  try {
    const value: unknown = JSON.parse(String(data));
    if (isObject(value)) return value;
  } catch {
    // reported below
  }
  report.skip(`${what} whose data is not a JSON object`);
  return null;
}

// --- an export file -----------------------------------------------------------------------

/** Whether a parsed JSON file is what `opencode export` writes. */
export function isExport(value: Rec): boolean {
  return isObject(value.info) && typeof value.info.id === 'string' && Array.isArray(value.messages);
}

/** The session of an export file; null when the file is not one. */
export function exportSession(file: string, root: string, report: FileReport): OpencodeSession | null {
  const digest = new DigestSink();
  const value = readJsonFile(file, root, report, digest);
  if (!value || !isExport(value)) return null;
  const messages = (value.messages as unknown[]).filter(isObject).flatMap((m) => {
    if (!isObject(m.info)) return [];
    return [{ info: m.info, parts: Array.isArray(m.parts) ? m.parts.filter(isObject) : [] }];
  });
  return { info: value.info as Rec, digest: digest.finish(), messages: async () => inOrder(messages) };
}

// --- the JSON storage folder --------------------------------------------------------------

/** The storage folder a path names: itself, its `storage/`, or the one a session file lies in (two folders up). */
export function storageOf(p: string, isFile: boolean, exists: (p: string) => boolean): string | null {
  const start = isFile ? path.dirname(p) : p;
  for (let dir = start, i = 0; i < (isFile ? 3 : 1); i++, dir = path.dirname(dir)) {
    if (exists(path.join(dir, 'session')) && exists(path.join(dir, 'message'))) return dir;
    if (exists(path.join(dir, 'storage', 'session'))) return path.join(dir, 'storage');
  }
  return null;
}

/** The session of a storage folder's session file; null when the file holds none. Ids become folder names only when they are plain names. */
export function storageSession(file: string, storage: string, report: FileReport): OpencodeSession | null {
  const digest = new DigestSink();
  const info = readJsonFile(file, storage, report, digest);
  if (!info || typeof info.id !== 'string') return null;
  const messages = storageMessages(storage, info.id, report, digest);
  return { info, digest: digest.finish(), messages: async () => messages };
}

function storageMessages(storage: string, sessionId: string, report: FileReport, digest: DigestSink): StoredMessage[] {
  const folder = childPath(storage, 'message', sessionId);
  if (!folder) {
    report.skip('sessions whose id is not a plain name (not read as a folder)');
    return [];
  }
  const json = (dir: string) => filesUnder(dir, (f) => f.endsWith('.json'), 0).map((ref) => readJsonFile(ref.file, storage, report, digest));
  const infos = json(folder).filter((m): m is Rec => m !== null);
  let flat: Rec[] | null = null;
  return inOrder(
    infos.map((info) => {
      const partsDir = childPath(storage, 'part', text(info.id));
      let parts = partsDir ? json(partsDir).filter((p): p is Rec => p !== null) : [];
      if (!parts.length) {
        // Older versions kept every part in part/, each naming its message.
        flat ??= json(path.join(storage, 'part')).filter((p): p is Rec => p !== null);
        parts = flat.filter((p) => p.messageID === info.id);
      }
      return { info, parts };
    }),
  );
}
