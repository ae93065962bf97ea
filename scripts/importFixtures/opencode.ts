// opencode (`opencode run`), talking OpenAI's Chat Completions API to the scripted server. Kept
// three ways: its database after it exited, a copy taken while it ran (with its WAL), and
// `opencode export`.
import fs from 'node:fs';
import path from 'node:path';
import { MARKERS, PROMPTS, toolCall } from './conversation';
import { INSTRUCTIONS, runTool, toolEnv, type Recording } from './recording';
import { sanitizeTree } from './sanitize';
import { withWal } from '../../src/core/import/sqliteSnapshot';
import type { SqlJsStatic } from '../../src/core/index/sqlite';
import type { RecordContext, ToolRecorder } from './toolRecorder';

/** opencode's data root in the recording's HOME (XDG's default). */
function dataRoot(recording: Recording): string {
  return path.join(recording.home, '.local', 'share', 'opencode');
}

/** Where the copy taken while opencode ran goes before it is kept. */
function liveCopy(recording: Recording): string {
  return path.join(recording.root, 'live');
}

function configure(recording: Recording, serverUrl: string): void {
  const configDir = path.join(recording.home, '.config', 'opencode');
  fs.mkdirSync(configDir, { recursive: true });
  const config = {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    model: 'braid/scripted-model',
    small_model: 'braid/scripted-model',
    provider: {
      braid: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Braid scripted model',
        options: { baseURL: `${serverUrl}/v1`, apiKey: 'scripted' },
        models: { 'scripted-model': { name: 'Scripted model', reasoning: true, tool_call: true, limit: { context: 128000, output: 8192 } } },
      },
    },
  };
  fs.writeFileSync(path.join(configDir, 'opencode.json'), JSON.stringify(config, null, 2));
  // opencode installs its plugin package into config folders with its own npm client: offline,
  // that client answers from its (empty) cache at once instead of asking the registry.
  fs.writeFileSync(path.join(recording.home, '.npmrc'), 'offline=true\n');
}

/** Copies the database and its WAL and shared-memory files as they are this moment. */
function copyLive(recording: Recording): void {
  const target = liveCopy(recording);
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(target, { recursive: true });
  for (const name of ['opencode.db', 'opencode.db-wal', 'opencode.db-shm']) {
    const file = path.join(dataRoot(recording), name);
    if (fs.existsSync(file)) fs.copyFileSync(file, path.join(target, name));
  }
}

/**
 * Does what SQLite's checkpoint does, with opencode not running: the WAL's transactions written
 * into the database and the WAL gone, so the live copy's WAL holds only what the second run wrote.
 */
function checkpoint(recording: Recording): void {
  const db = path.join(dataRoot(recording), 'opencode.db');
  if (!fs.existsSync(`${db}-wal`)) return;
  fs.writeFileSync(db, withWal(fs.readFileSync(db), fs.readFileSync(`${db}-wal`), { keepMode: true }));
  fs.rmSync(`${db}-wal`);
  fs.rmSync(`${db}-shm`, { force: true });
}

/** The database's CREATE statements, tables first, as `sqlite3 .schema` prints them. */
function schemaOf(SQL: SqlJsStatic, bytes: Uint8Array): string {
  const copy = Uint8Array.from(bytes);
  copy[18] = copy[19] = 1; // sql.js's in-memory files cannot hold a WAL database
  const db = new SQL.Database(copy);
  try {
    const rows = db.exec('SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type DESC, name')[0]?.values ?? [];
    return `-- opencode's database (opencode.db), as its fixture was recorded; see README.md.\n${rows.map(([sql]) => `${String(sql)};\n`).join('')}`;
  } finally {
    db.close();
  }
}

/** The session ids `opencode run --format json` printed events for. */
function sessionIds(events: string): string[] {
  return [...new Set([...events.matchAll(/"sessionID"\s*:\s*"(ses_[^"]+)"/g)].map((m) => m[1]!))];
}

export const opencode: ToolRecorder = {
  name: 'opencode',
  pkg: 'opencode-ai',
  bin: 'opencode',
  idPrefix: 'call_fixture_',
  workspaceFiles: { 'AGENTS.md': INSTRUCTIONS },
  vocabulary: (workspace) => ({
    list: (id) => toolCall(id, 'glob', { pattern: '**/*' }),
    read: (id, file) => toolCall(id, 'read', { filePath: path.join(workspace, file) }),
    shell: (id, command) => toolCall(id, 'bash', { command, description: 'Count the lines' }),
    write: (id, file, content) => toolCall(id, 'write', { filePath: path.join(workspace, file), content }),
    edit: (id, file, oldText, newText) => toolCall(id, 'edit', { filePath: path.join(workspace, file), oldString: oldText, newString: newText }),
    subagent: (id, prompt) => toolCall(id, 'task', { description: 'Check TODO.md', prompt, subagent_type: 'general' }),
  }),

  async record(context: RecordContext) {
    const { tool, recording, serverUrl } = context;
    configure(recording, serverUrl);
    const env = toolEnv(recording, {
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
      OPENCODE_DISABLE_SHARE: '1',
      OPENCODE_PURE: '1',
    });
    const run = ['run', '--format', 'json'];
    const [session] = sessionIds(await runTool(recording, tool.bin, [...run, PROMPTS.first], { env }));
    if (!session) throw new Error(`opencode run printed no session id (see ${recording.log})`);
    checkpoint(recording);
    // The live copy: taken when the subagent asks its first question, the main session's task call running.
    let copied = false;
    context.intercept = (request) => {
      const text = JSON.stringify(request.body);
      if (copied || !text.includes(MARKERS.subagent) || text.includes(MARKERS.second)) return undefined;
      copyLive(recording);
      copied = true;
      return undefined;
    };
    await runTool(recording, tool.bin, [...run, '--session', session, PROMPTS.second], { env });
    context.intercept = undefined;
    const exports = path.join(recording.root, 'export');
    fs.mkdirSync(exports, { recursive: true });
    const exported = await runTool(recording, tool.bin, ['export', session], { env });
    fs.writeFileSync(path.join(exports, `${session}.json`), exported);
  },

  collect({ recording }: RecordContext, out, SQL) {
    const keep = (from: string, to: string, names: readonly string[]) => {
      fs.rmSync(to, { recursive: true, force: true });
      fs.mkdirSync(to, { recursive: true });
      for (const name of names) if (fs.existsSync(path.join(from, name))) fs.copyFileSync(path.join(from, name), path.join(to, name));
    };
    // After it exited: what a reader sees, its WAL (opencode leaves one behind) applied.
    fs.rmSync(out, { recursive: true, force: true });
    fs.mkdirSync(out, { recursive: true });
    const db = fs.readFileSync(path.join(dataRoot(recording), 'opencode.db'));
    const wal = path.join(dataRoot(recording), 'opencode.db-wal');
    fs.writeFileSync(path.join(out, 'opencode.db'), fs.existsSync(wal) ? withWal(db, fs.readFileSync(wal), { keepMode: true }) : db);
    keep(liveCopy(recording), `${out}-live`, ['opencode.db', 'opencode.db-wal', 'opencode.db-shm']);
    keep(path.join(recording.root, 'export'), `${out}-export`, fs.readdirSync(path.join(recording.root, 'export')));
    for (const dir of [out, `${out}-live`, `${out}-export`]) sanitizeTree(dir, recording, SQL);
    fs.writeFileSync(`${out}-schema.sql`, schemaOf(SQL, fs.readFileSync(path.join(out, 'opencode.db'))));
  },
};
