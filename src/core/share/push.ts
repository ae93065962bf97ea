import path from 'node:path';
import type { StoredState, SyncPoint } from '../format/sessionState';
import type { SessionStore } from '../store/sessionStore';
import type { Machine } from './machine';
import {
  chunkCounts,
  chunkName,
  chunkPath,
  MANIFEST_FILE,
  MAX_MANIFEST_BYTES,
  parseManifest,
  parseRef,
  pusherOf,
  REF_ROOT,
  refOf,
  type AgentLog,
  type Manifest,
} from './payload';
import { remoteKey, trackingRoot, type ShareRemote } from './remote';
import { agentsWithLogs, newBytesOf, readBytes } from './sessionChunks';
import { gitReason, joined, type ShareGit } from './shareGit';

/** What redaction did to a line; `sample` never holds a secret. */
export interface LineRedaction {
  readonly kind: string;
  readonly where: string;
  readonly sample: string;
}

/** Redacts one log line (no newline) of a session: the line to send, or null to send none. */
export type RedactLine = (line: string) => { line: string | null; redactions: readonly LineRedaction[] };

/** A session to push: its folder and state. */
export interface SessionToPush {
  readonly dir: string;
  readonly state: StoredState;
}

export interface PushRequest {
  readonly git: ShareGit;
  /** Where each pushed session's new sync point is kept (state.json `synced`). */
  readonly store: SessionStore;
  readonly remote: ShareRemote;
  readonly machine: Machine;
  readonly author: string;
  readonly sessions: readonly SessionToPush[];
  /** The first commit of each workspace folder's repository, when it has one (a session's own `identity` comes first). */
  readonly rootCommits: ReadonlyMap<string, string>;
  /** The redaction of a session's lines (its folders become relative). */
  readonly redactFor: (state: StoredState) => RedactLine;
  readonly dryRun: boolean;
  /**
   * Sends no byte past these ends of each session's logs (by session id, then agent): a push
   * confirmed after a dry run sends what the dry run showed ({@link PushedSession.ends}), not a
   * turn that ended since.
   */
  readonly upTo?: ReadonlyMap<string, Readonly<Record<string, number>>>;
}

/** What a push did (or, dry, would do) for one session. */
export interface PushedSession {
  readonly id: string;
  readonly title: string;
  readonly outcome: 'pushed' | 'up-to-date' | 'would-push' | 'failed';
  /** Turns and bytes sent (after redaction), lines not sent (not JSON), and what was redacted. */
  readonly turns: number;
  readonly bytes: number;
  readonly droppedLines: number;
  readonly redactions: readonly LineRedaction[];
  readonly reason?: string;
  /** How far into each agent's local log it sends (would send): what {@link PushRequest.upTo} takes. */
  readonly ends?: Readonly<Record<string, number>>;
}

/** A session's next commit: its new manifest and chunks, its ref, and the sync point it makes. */
interface Planned {
  readonly session: SessionToPush;
  readonly ref: string;
  readonly parent: string | undefined;
  /** Each agent's local bytes and chunk count the commit holds. */
  readonly bytes: Record<string, number>;
  readonly manifest: Manifest;
  readonly files: readonly { path: string; bytes: Buffer }[];
  readonly report: PushedSession;
}

/**
 * Pushes sessions to `refs/braid/<machine>/<id>` of the remote: fetches what the remote holds of
 * this machine's sessions, redacts the bytes each log gained since, commits them as new chunks on
 * top of the remote's commit, and pushes (fast-forward only). A push that loses a race with another
 * push of this machine is planned again once from what the remote then holds.
 */
export async function pushSessions(req: PushRequest): Promise<PushedSession[]> {
  for (let attempt = 1; ; attempt++) {
    const tracking = await fetchTips(req);
    const manifests = await req.git.blobs(
      [...tracking.values()].map((c) => `${c}:${MANIFEST_FILE}`),
      MAX_MANIFEST_BYTES,
    );
    const plans: Planned[] = [];
    const reports: PushedSession[] = [];
    for (const session of req.sessions) {
      try {
        const ref = refFor(req, session.state);
        const parent = tracking.get(ref);
        const manifest = parent ? manifests.get(`${parent}:${MANIFEST_FILE}`) : undefined;
        if (manifest && 'tooBig' in manifest) throw new Error(`the remote's session.json of it is ${manifest.tooBig} bytes`);
        const pushed = manifest && parseManifest(joined(manifest), { machine: parseRefMachine(ref), sessionId: session.state.id });
        const plan = planPush(req, session, ref, parent, pushed);
        if (plan) plans.push(plan);
        else reports.push(quietReport(session, 'up-to-date'));
      } catch (err) {
        reports.push({ ...quietReport(session, 'failed'), reason: err instanceof Error ? err.message : String(err) });
      }
    }
    if (req.dryRun) return [...plans.map((p) => ({ ...p.report, outcome: 'would-push' as const })), ...reports];
    if (plans.length === 0) return reports;
    await commitPlans(req, plans);
    const results = await pushRefs(req, plans);
    await keepSyncPoints(req, plans, results);
    const raced = results.filter((r) => r.outcome === 'failed' && r.reason === NOT_FAST_FORWARD);
    if (raced.length === 0 || attempt === 2) return [...results, ...reports];
  }
}

export const NOT_FAST_FORWARD = 'the remote moved on while this push ran (another push of this session); push again';

function quietReport(session: SessionToPush, outcome: PushedSession['outcome']): PushedSession {
  return { id: session.state.id, title: session.state.title, outcome, turns: 0, bytes: 0, droppedLines: 0, redactions: [] };
}

/** The ref a session is pushed to: the one it was synced with, else this machine's. */
function refFor(req: PushRequest, state: StoredState): string {
  return state.synced?.[remoteKey(req.remote)]?.ref ?? refOf(req.machine.id, state.id);
}

function parseRefMachine(ref: string): string {
  const parsed = parseRef(ref);
  if ('refused' in parsed) throw new Error(`its sync point names ${ref}: ${parsed.refused}`);
  return parsed.machine;
}

/**
 * Fetches the remote's refs of every machine whose refs the sessions are pushed to (this
 * machine's, and those of sessions synced in from others) into the share repository; the
 * commits by ref.
 */
async function fetchTips(req: PushRequest): Promise<Map<string, string>> {
  const root = trackingRoot(req.remote);
  const machines = new Set([req.machine.id, ...req.sessions.map((s) => parseRefMachine(refFor(req, s.state)))]);
  const specs = [...machines].map((m) => `+${REF_ROOT}/${m}/*:${root}/${m}/*`);
  await req.git.check(['fetch', '--quiet', '--no-tags', '--prune', '--no-write-fetch-head', req.remote.url, ...specs], `fetch from ${req.remote.shown}`);
  return trackedTips(req.git, root);
}

/** The commits of the refs mirrored under `root`, by the remote's ref name. */
export async function trackedTips(git: ShareGit, root: string): Promise<Map<string, string>> {
  const out = await git.check(['for-each-ref', '--format=%(objectname) %(refname)', `${root}/`], 'list the fetched refs');
  const tips = new Map<string, string>();
  for (const line of out.toString('utf8').split('\n').filter(Boolean)) {
    const [commit, ref] = line.split(' ') as [string, string];
    tips.set(`${REF_ROOT}/${ref.slice(root.length + 1)}`, commit);
  }
  return tips;
}

/**
 * Where the local log stands against the remote's commit `parent`: the sync point this machine
 * kept, or, when that commit is this machine's own push, the sizes its manifest says this machine
 * sent (a session pushed before sync points were kept, or a push killed after the remote took it
 * and before its sync point was kept; a log shorter than that is refused where it is read).
 * Throws when the remote's copy moved on since by another machine's push: a `braid sync` brings
 * that in first.
 */
function pushedBytes(req: PushRequest, session: SessionToPush, parent: string | undefined, pushed: Manifest | undefined): Record<string, number> {
  if (!parent || !pushed) return {};
  const point: SyncPoint | undefined = session.state.synced?.[remoteKey(req.remote)];
  if (point?.commit === parent) return { ...point.bytes };
  const by = pusherOf(pushed);
  if (by.machine === req.machine.id) return Object.fromEntries(Object.entries(pushed.logs).map(([a, l]) => [a, l.sourceBytes]));
  throw new Error(`${by.name} pushed it since this machine last did; braid sync brings that here first`);
}

/** The next commit of one session, or undefined when the remote holds all of it that can be sent. */
function planPush(req: PushRequest, session: SessionToPush, ref: string, parent: string | undefined, pushed: Manifest | undefined): Planned | undefined {
  const redact = req.redactFor(session.state);
  const from = pushedBytes(req, session, parent, pushed);
  const logs: Record<string, AgentLog> = { ...(pushed?.logs ?? {}) };
  const bytes: Record<string, number> = { ...from };
  const files: { path: string; bytes: Buffer }[] = [];
  let turns = 0;
  let droppedLines = 0;
  const redactions: LineRedaction[] = [];
  const cap = req.upTo?.get(session.state.id);
  for (const agent of agentsWithLogs(session.dir)) {
    const start = from[agent] ?? 0;
    const news = newBytesOf(session.dir, agent, start, cap ? (cap[agent] ?? start) : undefined);
    bytes[agent] = news.from;
    if (news.to <= news.from || (agent === 'main' && news.turns === 0)) continue;
    const lines = readBytes(session.dir, agent, news.from, news.to).toString('utf8').split('\n').slice(0, -1);
    const sent: string[] = [];
    for (const line of lines) {
      const r = redact(line);
      redactions.push(...r.redactions);
      if (r.line === null) droppedLines++;
      else sent.push(r.line);
    }
    const chunks = [...(logs[agent]?.chunks ?? []), chunkName((logs[agent]?.chunks.length ?? 0) + 1)];
    logs[agent] = { chunks, sourceBytes: news.to };
    bytes[agent] = news.to;
    files.push({ path: chunkPath(agent, chunks.at(-1)!), bytes: Buffer.from(sent.length ? `${sent.join('\n')}\n` : '') });
    turns += news.turns;
  }
  const manifest = manifestOf(req, session, ref, pushed, logs);
  if (files.length === 0 && pushed && pushed.title === manifest.title) return undefined;
  const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 1)}\n`);
  const sentBytes = files.reduce((n, f) => n + f.bytes.length, 0);
  const report: PushedSession = {
    id: session.state.id,
    title: session.state.title,
    outcome: 'pushed',
    turns,
    bytes: sentBytes,
    droppedLines,
    redactions,
    ends: bytes,
  };
  return { session, ref, parent, bytes, manifest, files: [{ path: MANIFEST_FILE, bytes: manifestBytes }, ...files], report };
}

/** The manifest of a push: the session's own machine and author stay those of its first push; `by` names this machine when it is another. */
function manifestOf(req: PushRequest, session: SessionToPush, ref: string, pushed: Manifest | undefined, logs: Record<string, AgentLog>): Manifest {
  const s = session.state;
  const machine = parseRefMachine(ref);
  const mine = machine === req.machine.id;
  return {
    format: 1,
    id: s.id,
    title: sentTitle(req.redactFor(s), s.title),
    createdAt: s.createdAt,
    author: pushed?.author ?? req.author,
    machine,
    machineName: mine ? req.machine.name : (pushed?.machineName ?? machine),
    project: { name: path.basename(s.workspaceDir), ...rootCommitOf(req, s) },
    forkedFrom: s.forkedFrom ? { sessionId: s.forkedFrom.sessionId, turn: s.forkedFrom.turn } : null,
    logs,
    ...(mine ? {} : { by: { machine: req.machine.id, name: req.machine.name } }),
  };
}

function rootCommitOf(req: PushRequest, s: StoredState): { rootCommit?: string } {
  const root = s.identity?.rootCommit ?? req.rootCommits.get(s.workspaceDir);
  return root ? { rootCommit: root } : {};
}

/**
 * A session's title as a push sends it (the manifest's): redacted as its log's lines are, and its
 * last word dropped when it may be a secret cut short: an automatic title is its first prompt cut,
 * and the start of a key is no longer the key the redaction knows. Such a word is 8 or more
 * letters, digits, `_` or `-`, mixing letters and digits, at the end (before a closing `…`).
 */
export function sentTitle(redact: RedactLine, title: string): string {
  const line = redact(JSON.stringify({ title })).line;
  const redacted = line ? String((JSON.parse(line) as { title: unknown }).title) : '';
  return redacted.replace(/(^|\s)([A-Za-z0-9_-]{8,})(…?)$/, (all, space: string, word: string, ellipsis: string) =>
    /[0-9]/.test(word) && /[A-Za-z]/.test(word) ? `${space}[REDACTED:cut]${ellipsis}` : all,
  );
}

/** Writes every planned commit onto its tracking ref with one `git fast-import`. */
async function commitPlans(req: PushRequest, plans: readonly Planned[]): Promise<void> {
  const root = trackingRoot(req.remote);
  const now = Math.floor(Date.now() / 1000);
  const parts: Buffer[] = [];
  const data = (bytes: Buffer) => parts.push(Buffer.from(`data ${bytes.length}\n`), bytes, Buffer.from('\n'));
  for (const plan of plans) {
    parts.push(Buffer.from(`commit ${trackedRef(root, plan.ref)}\ncommitter Braid <braid@braid.invalid> ${now} +0000\n`));
    data(Buffer.from(`${plan.report.turns} turn(s) of ${plan.session.state.id}\n`));
    if (plan.parent) parts.push(Buffer.from(`from ${plan.parent}\n`));
    for (const file of plan.files) {
      parts.push(Buffer.from(`M 100644 inline ${file.path}\n`));
      data(file.bytes);
    }
    parts.push(Buffer.from('\n'));
  }
  parts.push(Buffer.from('done\n'));
  await req.git.check(['fast-import', '--quiet', '--done'], 'build the commits to push', { input: Buffer.concat(parts) });
}

/** Where the share repository mirrors the remote's `ref`. */
function trackedRef(root: string, ref: string): string {
  return `${root}/${ref.slice(REF_ROOT.length + 1)}`;
}

/** Pushes the planned sessions' tracking refs to the remote, fast-forward only; each session's outcome from git's report. */
async function pushRefs(req: PushRequest, plans: readonly Planned[]): Promise<PushedSession[]> {
  const root = trackingRoot(req.remote);
  const specs = plans.map((p) => `${trackedRef(root, p.ref)}:${p.ref}`);
  const run = await req.git.run(['push', '--porcelain', req.remote.url, ...specs]);
  const lines = Buffer.concat(run.chunks).toString('utf8').split('\n');
  return plans.map((plan) => {
    const line = lines.find((l) => l.split('\t')[1]?.endsWith(`:${plan.ref}`));
    const flag = line?.[0];
    if (flag === ' ' || flag === '*' || flag === '+' || flag === '=') return plan.report;
    const summary = line?.split('\t')[2] ?? '';
    const reason = /non-fast-forward|fetch first|stale info|failed to update ref|cannot lock ref|failed to lock/.test(summary)
      ? NOT_FAST_FORWARD
      : `the remote refused it: ${summary || gitReason(run.stderr)}`;
    return { ...plan.report, outcome: 'failed' as const, reason };
  });
}

/** Keeps in each pushed session's state.json where it now stands on the remote (a sync or push after this one starts there). */
async function keepSyncPoints(req: PushRequest, plans: readonly Planned[], results: readonly PushedSession[]): Promise<void> {
  const tips = await trackedTips(req.git, trackingRoot(req.remote));
  for (const [i, plan] of plans.entries()) {
    const commit = tips.get(plan.ref);
    if (results[i]?.outcome !== 'pushed' || !commit) continue;
    await keepSyncPoint(req.store, plan.session.state.id, req.remote, { ref: plan.ref, commit, bytes: plan.bytes, chunks: chunkCounts(plan.manifest) });
  }
}

/** Writes a session's sync point with `remote` into its state.json. */
export async function keepSyncPoint(store: SessionStore, id: string, remote: ShareRemote, point: SyncPoint): Promise<void> {
  await store.update(id, (s) => ({ ...s, synced: { ...s.synced, [remoteKey(remote)]: point } }));
}
