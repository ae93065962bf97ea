import fs from 'node:fs';
import path from 'node:path';
import { safeReaddir } from '../fs/probe';
import { listSessionFolders } from '../format/layout';
import { isWorkspaceKey } from '../workspace/workspaceKey';
import { isAlive } from '../fs/fileLock';
import { rowDisagreement } from '../index/indexRows';
import { scanWireLog, type ScanReport } from '../wire/wireReader';
import { finishPending, hasPending } from './pendingRewind';
import { implausibleFields, readState, StateFileError } from '../format/sessionState';
import type { SessionStore } from './sessionStore';
import { readSessionFolder, type SessionSummary } from '../format/summary';
import { SessionBusyError, WriterLease } from './writerLease';
import { SharedSessionError } from './errors';
import { checkWriter } from './doctorWriters';
import { checkUnreadable, type DamagedLog } from './doctorQuarantine';
import type { Finding } from './doctorFinding';
import { TurnStructure } from '../wire/turnStructure';
import { counted } from '../counted';
import { builderAlive } from './fork';

export type { Finding };

export interface DoctorReport {
  sessions: number;
  logs: number;
  records: number;
  findings: Finding[];
}

/**
 * Verifies every session folder, log and the index (`braid doctor`). With `fix` it
 * repairs what can be repaired without losing data: state.json rebuilt from the logs (the broken
 * file kept beside it), unreadable lines and torn tails moved to a quarantine file beside their
 * log (see checkUnreadable), orphan `.partial-*` folders moved to the trash, temp files of dead
 * writers removed, rewinds a crash cut short finished, sessions whose writer died recovered (see
 * checkWriter), index drift reconciled.
 */
export async function runDoctor(store: SessionStore, options: { fix: boolean }): Promise<DoctorReport> {
  const layout = store.layout;
  const report: DoctorReport = { sessions: 0, logs: 0, records: 0, findings: [] };
  const note = (f: Finding) => report.findings.push(f);

  const summaries = new Map<string, SessionSummary>();
  for (const folder of listSessionFolders(layout)) {
    report.sessions++;
    const where = `${folder.workspaceKey}/${folder.id}`;
    let repaired = false;
    try {
      readState(layout.stateFile(folder.dir));
      if (await checkStateFields(store, folder.id, layout.stateFile(folder.dir), where, options.fix, note)) repaired = true;
    } catch (err) {
      if (!(err instanceof StateFileError)) throw err;
      const finding: Finding = { severity: 'error', where, fixable: true, message: `${err.message}; it can be rebuilt from the session's log` };
      if (options.fix) {
        store.repairState(folder.dir);
        finding.fixed = 'rebuilt state.json from the log (the broken file is kept as state.json.broken-*)';
        repaired = true;
      }
      note(finding);
    }
    if (!fs.existsSync(layout.agentLog(folder.dir))) {
      note({
        severity: 'warning',
        where: `${where}/agents/main`,
        fixable: false,
        message: 'the main log (wire.jsonl) is missing: the conversation cannot be read; the session keeps its state.json',
      });
    }
    const turns = new TurnStructure();
    const damaged: DamagedLog[] = [];
    for (const agent of safeReaddir(layout.agentsDir(folder.dir))) {
      const log = layout.agentLog(folder.dir, agent);
      if (!fs.existsSync(log)) continue;
      report.logs++;
      const scan = scanWireLog(log, agent === 'main' ? (record, offset) => turns.add(record, offset) : () => undefined);
      report.records += scan.records;
      checkLog(scan, `${where}/agents/${agent}`, note);
      if (scan.badLines > 0 || scan.tornTail) damaged.push({ log, where: `${where}/agents/${agent}`, scan });
    }
    if (hasPending(folder.dir)) {
      const finding: Finding = {
        severity: 'error',
        where,
        fixable: true,
        message: 'a rewind (or its undo) was cut short by a crash: the conversation and the workspace files disagree until it is finished',
      };
      if (options.fix) finding.fixed = await finishCutShort(store, folder.dir);
      note(finding);
    }
    await checkWriter(store, folder.dir, where, turns, options.fix, note);
    // After the writer checks: a recovery appends to the log, and its torn last line becomes a line of its own, taken out here.
    if (damaged.length > 0) await checkUnreadable(store, folder.dir, damaged, options.fix, note);
    const inside = (dir: string) => safeReaddir(dir).map((n) => path.join(dir, n));
    // Temp files live beside what they replace: state.json, blobs, and a log copied at a takeover.
    for (const dir of [folder.dir, ...inside(layout.blobsDir(folder.dir)), ...inside(layout.agentsDir(folder.dir))]) sweepTemps(dir, where, options.fix, note);
    try {
      const reading = readSessionFolder(folder.dir);
      if (repaired || !reading.stateProblem) summaries.set(folder.id, reading.summary);
    } catch {
      // unreadable folders were reported above
    }
  }
  sweepTemps(layout.root, 'data folder', options.fix, note);
  sweepTemps(layout.blameMemoDir, 'blame memos', options.fix, note);

  for (const workspaceKey of safeReaddir(layout.sessionsDir).filter(isWorkspaceKey)) {
    sweepTemps(layout.workspaceDir(workspaceKey), workspaceKey, options.fix, note); // the workspace index's saves
    for (const name of safeReaddir(layout.workspaceDir(workspaceKey))) {
      if (!name.startsWith('.partial-') || builderAlive(name)) continue; // an import still building it is no orphan
      const where = `${workspaceKey}/${name}`;
      const finding: Finding = { severity: 'warning', where, fixable: true, message: 'an orphan partial folder (a fork or import that did not finish)' };
      if (options.fix) {
        const target = path.join(layout.trashedPartialsDir, `${workspaceKey}-${name}-${Date.now()}`);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.renameSync(path.join(layout.workspaceDir(workspaceKey), name), target);
        finding.fixed = 'moved it to the trash';
      }
      note(finding);
    }
  }

  await checkIndex(store, summaries, options.fix, note);
  return report;
}

/**
 * Values in a readable state.json that Braid never writes (a createdAt of 1e308): they are read
 * with stand-ins, so listings work; with `fix` the stand-ins are written. Returns whether it wrote.
 */
async function checkStateFields(store: SessionStore, id: string, file: string, where: string, fix: boolean, note: (f: Finding) => void): Promise<boolean> {
  let problems: string[];
  try {
    problems = implausibleFields(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch {
    return false; // it was readable a moment ago: another process is replacing it
  }
  if (problems.length === 0) return false;
  const finding: Finding = { severity: 'warning', where, fixable: true, message: `state.json: ${problems.join('; ')}; read with stand-in values` };
  if (fix) {
    await store.update(id, (state) => state);
    finding.fixed = 'wrote the stand-in values to state.json';
  }
  note(finding);
  return fix;
}

/** Reports what a scan of one log read with allowances (its unreadable lines are checkUnreadable's). */
function checkLog(scan: ScanReport, where: string, note: (f: Finding) => void): void {
  if (scan.invalidUtf8Lines > 0)
    note({
      severity: 'warning',
      where,
      fixable: false,
      message: `${counted(scan.invalidUtf8Lines, 'line')} with invalid UTF-8 read with replacement characters`,
    });
  if (scan.unknownRecords > 0)
    note({ severity: 'info', where, fixable: false, message: `${counted(scan.unknownRecords, 'record')} of unknown types skipped (kept on copy)` });
  if (scan.newerRecords > 0)
    note({ severity: 'info', where, fixable: false, message: `${counted(scan.newerRecords, 'record')} from a newer Braid read as far as known` });
}

/**
 * The index against disk: the file itself (SQLite's integrity check), rows missing or left over,
 * and rows whose fields disagree with their folder (a damaged page can hold wrong values that
 * still pass the check). With `fix`: a damaged workspace index is rebuilt from its folders (kept
 * aside as index.sqlite.corrupt), rows that disagree are re-read.
 */
async function checkIndex(store: SessionStore, summaries: Map<string, SessionSummary>, fix: boolean, note: (f: Finding) => void): Promise<void> {
  const broken = store.index.checkFiles();
  for (const { workspaceKey, problem } of broken) {
    const where = `${workspaceKey}/index.sqlite`;
    const finding: Finding = { severity: 'error', where, fixable: true, message: `${problem}; it can be rebuilt from the session folders` };
    if (fix) {
      await store.index.repairFile(workspaceKey);
      finding.fixed = `rebuilt the index from the session folders (a damaged file is kept as ${where}.corrupt)`;
    }
    note(finding);
  }
  if (fix && broken.length > 0) return;
  const drift = store.index.driftFromFolders();
  const wrong = [...summaries].filter(([id, summary]) => {
    const row = store.index.get(id);
    return row !== undefined && rowDisagreement(row, summary) !== undefined;
  });
  const stale = Math.max(0, wrong.length - drift.updated);
  if (drift.added + drift.updated + drift.removed + stale > 0) {
    const finding: Finding = {
      severity: 'warning',
      where: 'index',
      fixable: true,
      message: `the index disagrees with disk: ${counted(drift.added, 'session')} missing, ${Math.max(drift.updated, wrong.length)} out of date, ${drift.removed} no longer on disk`,
    };
    if (fix) {
      await store.index.catchUpWithFolders();
      for (const [id, summary] of wrong) store.index.putSummary(id, summary);
      await store.index.flush();
      finding.fixed = 'reconciled the index with disk';
    }
    note(finding);
  }
}

/** Finishes a rewind a crash cut short, holding the session's lease (a dead holder's is taken over). */
async function finishCutShort(store: SessionStore, dir: string): Promise<string | undefined> {
  let lease: WriterLease;
  try {
    lease = await WriterLease.acquire(store.layout, dir);
  } catch (err) {
    if (err instanceof SessionBusyError) return undefined; // its writer is alive and finishes it when it opens the session again
    if (err instanceof SharedSessionError) return undefined; // a pulled copy is read-only here: a pull replaces it
    throw err;
  }
  try {
    return `finished the ${await finishPending(store, dir, () => lease.check())}: files and conversation agree again`;
  } finally {
    await lease.release();
  }
}

/**
 * Temp files of atomic writes (`.<name>.tmp-<pid>-<n>`) whose process is gone: a crash between
 * writing and renaming left them; the file they were to replace is intact. A live process's
 * temp file is its write in progress and is left alone.
 */
function sweepTemps(dir: string, where: string, fix: boolean, note: (f: Finding) => void): void {
  for (const name of safeReaddir(dir)) {
    const match = /^\.(.+)\.tmp-(\d+)-\d+$/.exec(name);
    if (!match) continue;
    const pid = Number(match[2]);
    if (pid !== process.pid && isAlive(pid)) continue;
    const finding: Finding = { severity: 'info', where, fixable: true, message: `stray temp file ${name} from an interrupted write of ${match[1]}` };
    if (fix) {
      fs.rmSync(path.join(dir, name), { force: true });
      finding.fixed = `removed it (${match[1]} itself is intact)`;
    }
    note(finding);
  }
}
