// The per-turn rows of the index-scale benchmark: a `braid exec --session` turn (a new process,
// against the scripted model server) in the measured workspace's 20-turn session and its long one,
// on a copy of that workspace's folder; the index write alone in process (inProcessWrite.ts); a
// native SQLite UPDATE of a row as big as the session's rows in the index (a new sqlite3 process);
// and the git processes of a first and a second `braid exec` turn in an unchanged repository.
import fs from 'node:fs';
import path from 'node:path';
import { gitCounter } from '../gitCounter';
import { dumpOf, runScript, sqlText } from './nativeSqlite';
import { indexWriteMs } from './inProcessWrite';
import type { RealisticStore } from './realisticStore';
import { bytes, goal, ms, sizeLabel, times, type ScaleRig, type ScaleRow } from './rig';
import { timedRuns } from './timedRuns';

const modelEnv = (rig: ScaleRig, extra: NodeJS.ProcessEnv = {}) => ({
  ...process.env,
  BRAID_PROVIDER: 'openai-compatible',
  BRAID_MODEL: 'scripted-model',
  BRAID_BASE_URL: rig.baseUrl,
  BRAID_API_KEY: '',
  ...extra,
});

/** The bytes of the `.dump` lines of an index file that name the session: its rows, whatever the schema. */
function rowBytes(indexFile: string, id: string): number {
  return dumpOf(indexFile)
    .split('\n')
    .filter((l) => l.includes(id))
    .reduce((n, l) => n + Buffer.byteLength(l), 0);
}

/** A new sqlite3 process updating one row of `size` bytes (random, so every page changes) in a table of `rows` such rows. */
async function sqliteUpdateMs(rig: ScaleRig, dir: string, size: number, rows: number): Promise<number> {
  const db = path.join(dir, `rows-${size}.sqlite`);
  runScript(
    db,
    `CREATE TABLE rows (id TEXT PRIMARY KEY, body BLOB);\nWITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows}) INSERT INTO rows SELECT 'r' || i, randomblob(${size}) FROM n;`,
  );
  const { command, args } = rig.sqlite.command(db, `UPDATE rows SET body = randomblob(${size}) WHERE id = ${sqlText('r1')}`);
  return (await timedRuns(rig.runs, command, args)).ms;
}

const share = (part: number, whole: number) => `${((part / whole) * 100).toFixed(0)}%`;

/** The per-turn rows at a 20-turn session and the long one of the measured workspace. */
export async function turnRows(rig: ScaleRig, store: RealisticStore): Promise<ScaleRow[]> {
  const size = sizeLabel(store.count);
  const root = path.join(rig.scratch, `turns-${store.count}`);
  const copy = path.join(root, 'sessions', store.current.key);
  fs.cpSync(store.current.sessions, copy, { recursive: true, preserveTimestamps: true }); // the index rows stay current: state mtimes kept
  const sessions = fs.readdirSync(copy).filter((n) => n.startsWith('ses_')).length;
  const exec = (id: string) =>
    timedRuns(
      rig.runs,
      process.execPath,
      [rig.cli, '--data-dir', root, '--workspace', store.current.dir, 'exec', '--session', id, 'go on with the next step'],
      {
        env: modelEnv(rig),
        cwd: store.current.dir,
      },
    );
  const short = await exec(store.short.id);
  const long = await exec(store.long.id);
  const indexFile = path.join(copy, 'index.sqlite');
  const shortBytes = rowBytes(indexFile, store.short.id);
  const longBytes = rowBytes(indexFile, store.long.id);
  const [shortWrite, longWrite] = await indexWriteMs(root, rig.wasmPath, store.current.key, [store.short.id, store.long.id], Math.max(5, rig.runs));
  const shortSql = await sqliteUpdateMs(rig, root, shortBytes, sessions);
  const longSql = await sqliteUpdateMs(rig, root, longBytes, sessions);
  const turns = `${store.short.turns} vs ${store.long.turns} turns`;
  return [
    [`${size}: a \`braid exec --session\` turn (new process, scripted model), ${turns}`, `${ms(short.ms)} vs ${ms(long.ms)}: ${times(long.ms, short.ms)}`],
    [
      `${size}: the turn's index write alone (in process: SessionIndex putSummary + flush), ${turns}`,
      `${ms(shortWrite!)} vs ${ms(longWrite!)}: ${times(longWrite!, shortWrite!)} ${goal(longWrite! / shortWrite!, 1.5)}; ${share(shortWrite!, short.ms)} and ${share(longWrite!, long.ms)} of the exec turn`,
    ],
    [
      `${size}: the session's rows in the index (bytes of its \`.dump\` lines), and SQLite updating a row that big (new sqlite3 process), ${turns}`,
      `${bytes(shortBytes)}: ${ms(shortSql)} vs ${bytes(longBytes)}: ${ms(longSql)}; the index write ${times(shortWrite!, shortSql)} / ${times(longWrite!, longSql)} of it`,
    ],
  ];
}

/** Git processes a `braid exec` turn starts in an unchanged repository: the first turn of a session and the next. */
export async function gitRow(rig: ScaleRig): Promise<ScaleRow> {
  const root = path.join(rig.scratch, 'git');
  const counter = gitCounter(root);
  const repo = path.join(root, 'repo');
  for (let i = 0; i < 200; i++) {
    fs.mkdirSync(path.join(repo, `src${i % 20}`), { recursive: true });
    fs.writeFileSync(path.join(repo, `src${i % 20}`, `file${i}.ts`), `export const value${i} = ${i};\n`);
  }
  const env = { ...process.env, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' };
  for (const args of [
    ['init', '-q', '-b', 'main'],
    ['add', '.'],
    ['commit', '-q', '-m', 'first'],
  ])
    await timedRuns(1, counter.realGit, args, { cwd: repo, env });
  const turn = async (...how: string[]) => {
    counter.reset();
    await timedRuns(1, process.execPath, [rig.cli, '--data-dir', path.join(root, 'data'), 'exec', ...how, 'hi'], {
      cwd: repo,
      env: modelEnv(rig, { PATH: counter.path }),
    });
    return counter.count();
  };
  // The first turn is the store's first sighting of the repository: it asks git what it is (filter
  // drivers, origin, branch, log, first commit). The others find that kept for the unchanged repository.
  const first = await turn();
  const continued = await turn('--continue');
  const newSession = await turn();
  const met = continued <= 2 && newSession <= 2;
  return [
    "git processes per `braid exec` turn in an unchanged repository: a continued turn, a new session's first turn (goal <= 2), and the first turn in a repository new to the store",
    `${continued}, ${newSession} (${met ? 'met' : 'not met'}); first sighting ${first}`,
  ];
}
