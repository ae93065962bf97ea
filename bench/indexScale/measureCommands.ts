// The rows of what users type on a realistic store, each a new process timed from spawn to exit
// beside its peers in the same run: `braid list` (one workspace, every workspace) against head+stat
// of the logs in a new node process and a native SQLite query of a Codex-style state table,
// `braid search` against `grep -rlw`, the index's size against the state database's, and
// `braid rebuild-index` against reading every log.
import fs from 'node:fs';
import path from 'node:path';
import type { RealisticStore } from './realisticStore';
import { sqlText } from './nativeSqlite';
import { bytes, goal, ms, sizeLabel, times, type ScaleRig, type ScaleRow } from './rig';
import { OUTPUT_WORD, PROMPT_WORD } from './storeShape';
import { timedRuns, type Timed } from './timedRuns';

const braid = (rig: ScaleRig, store: RealisticStore, runs: number, ...command: string[]): Promise<Timed> =>
  timedRuns(runs, process.execPath, [rig.cli, '--data-dir', store.root, '--workspace', store.current.dir, ...command]);

const peer = (rig: ScaleRig, ...args: string[]) => timedRuns(rig.runs, process.execPath, [rig.peers, ...args]);

function sqliteQuery(rig: ScaleRig, store: RealisticStore, cwd: string | undefined): Promise<Timed> {
  const where = cwd === undefined ? '' : `cwd = ${sqlText(cwd)} AND `;
  const sql = `SELECT id, title, updated_at, cwd FROM threads WHERE ${where}archived = 0 ORDER BY updated_at DESC LIMIT 50`;
  const { command, args } = rig.sqlite.command(store.stateDb, sql);
  return timedRuns(rig.runs, command, args);
}

const lines = (text: string) => text.split('\n').filter((l) => l.trim()).length;
/** The sessions `braid search` printed: a line each, its matching turns indented beneath it. */
const sessionLines = (text: string) => text.split('\n').filter((l) => l.trim() && !/^\s/.test(l)).length;

/** Deletes every index file, then `braid rebuild-index` once (it also readies the store for the rows after), against reading every log. */
export async function rebuildRow(rig: ScaleRig, store: RealisticStore): Promise<ScaleRow> {
  for (const folder of store.sessionFolders) fs.rmSync(path.join(folder, 'index.sqlite'), { force: true });
  fs.rmSync(store.layout.legacyIndexFile, { force: true });
  rig.say('  braid rebuild-index');
  const rebuilt = await braid(rig, store, 1, 'rebuild-index');
  const read = await peer(rig, 'read-logs', store.layout.sessionsDir);
  const r = rebuilt.ms / read.ms;
  return [
    `${sizeLabel(store.count)}: rebuild (\`braid rebuild-index\`, every index file deleted; 1 run) vs reading every log (new node process)`,
    `${ms(rebuilt.ms)}; reading every log ${ms(read.ms)}: ${times(rebuilt.ms, read.ms)} ${goal(r, 3)}`,
  ];
}

/** `braid list` of one workspace and `--all`, each against head+stat and native SQLite. */
export async function listRows(rig: ScaleRig, store: RealisticStore): Promise<ScaleRow[]> {
  const size = sizeLabel(store.count);
  const one = await braid(rig, store, rig.runs, 'list');
  const oneHead = await peer(rig, 'head-stat', store.current.sessions);
  const oneSql = await sqliteQuery(rig, store, store.current.dir);
  const all = await braid(rig, store, rig.runs, 'list', '--all');
  const allHead = await peer(rig, 'head-stat', ...store.sessionFolders);
  const allSql = await sqliteQuery(rig, store, undefined);
  const cell = (b: Timed, head: Timed, sql: Timed) =>
    `${ms(b.ms)} (${lines(b.stdout)} rows); head+stat ${ms(head.ms)}: ${times(b.ms, head.ms)} ${goal(b.ms / head.ms, 1)}; SQLite ${ms(sql.ms)}: ${times(b.ms, sql.ms)}`;
  return [
    [
      `${size}: \`braid list\`, one workspace, vs head+stat of its logs and SQLite's query for one cwd`,
      `${cell(one, oneHead, oneSql)} ${goal(one.ms / oneSql.ms, 3)}`,
    ],
    [`${size}: \`braid list --all\` vs head+stat of every log and SQLite's query of every row`, `${cell(all, allHead, allSql)}`],
  ];
}

/**
 * `braid search` of the word planted in prompts and (unless `promptWordOnly`, as in quick runs) of
 * the one planted in tool outputs, one workspace and `--all`, against `grep -rlw` over the same logs.
 */
export async function searchRows(rig: ScaleRig, store: RealisticStore, promptWordOnly: boolean): Promise<ScaleRow[]> {
  const rows: ScaleRow[] = [];
  const words = [
    [PROMPT_WORD, 'prompts'],
    [OUTPUT_WORD, 'tool outputs'],
  ] as const;
  for (const [word, where] of words.slice(0, promptWordOnly ? 1 : 2)) {
    for (const all of [false, true]) {
      const found = await braid(rig, store, rig.runs, 'search', word, ...(all ? ['--all'] : []));
      const folder = all ? store.layout.sessionsDir : store.current.sessions;
      const grep = await timedRuns(rig.runs, 'grep', ['-rlw', '--include=wire.jsonl', word, folder], { okCodes: [0, 1] });
      const hits = /^No matching sessions/.test(found.stdout) ? 0 : sessionLines(found.stdout);
      rows.push([
        `${sizeLabel(store.count)}: \`braid search${all ? ' --all' : ''}\`, a word in 2% of sessions' ${where}, vs \`grep -rlw\` over ${all ? 'every log' : "the workspace's logs"}`,
        `${ms(found.ms)}, ${hits} found; grep ${ms(grep.ms)}, ${lines(grep.stdout)} found: ${times(found.ms, grep.ms)} ${goal(found.ms / grep.ms, 1)}`,
      ]);
    }
  }
  return rows;
}

/** The bytes of every workspace's index.sqlite against the Codex-style state database of the same sessions, and the logs. */
export function sizeRow(store: RealisticStore): ScaleRow {
  const size = (file: string) => (fs.existsSync(file) ? fs.statSync(file).size : 0);
  const index = store.sessionFolders.reduce((n, f) => n + size(path.join(f, 'index.sqlite')), 0);
  let logs = 0;
  for (const folder of store.sessionFolders)
    for (const id of fs.readdirSync(folder)) if (id.startsWith('ses_')) logs += size(store.layout.agentLog(path.join(folder, id)));
  const state = size(store.stateDb);
  const perSession = (n: number) => bytes(n / store.count);
  return [
    `${sizeLabel(store.count)}: index size (every workspace's index.sqlite) vs a Codex-style state database`,
    `${bytes(index)} (${perSession(index)} a session); state database ${bytes(state)} (${perSession(state)} a session): ${times(index, state)}; the logs ${bytes(logs)} (${perSession(logs)} a session)`,
  ];
}
