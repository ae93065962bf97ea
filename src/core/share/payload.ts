import { isMachineId } from '../format/machineId';
import { isSessionId } from '../ids';
import { ShareError } from './shareError';

/**
 * How a session lies on a git remote (docs/reference.md, "Sessions on a git remote"): the ref
 * `refs/braid/<machine>/<session id>`, a commit per push, and in its tree `session.json` (this
 * manifest) and each agent's log as numbered chunks, `agents/<agent>/<n>.jsonl`, one per push that
 * added to it. The chunks in order are the log as pushed: a push adds a chunk, never changes one.
 */
export interface Manifest {
  readonly format: 1;
  readonly id: string;
  readonly title: string;
  readonly createdAt: number;
  readonly author: string;
  readonly machine: string;
  readonly machineName: string;
  /** The workspace folder's name, and its repository's first commit when it has one. */
  readonly project: { readonly name: string; readonly rootCommit?: string };
  readonly forkedFrom: { readonly sessionId: string; readonly turn: number | null } | null;
  /** Each agent's log: its chunks' names in order, and how many bytes of the pushing machine's log they hold. */
  readonly logs: Readonly<Record<string, AgentLog>>;
  /**
   * The machine that made this push when it is not `machine` (the session's own): a machine that
   * took the session in with `braid sync` and went on with it. Absent: `machine` pushed it.
   */
  readonly by?: { readonly machine: string; readonly name: string };
}

/** How many chunks each agent's log has in a manifest. */
export function chunkCounts(manifest: Manifest): Record<string, number> {
  return Object.fromEntries(Object.entries(manifest.logs).map(([a, l]) => [a, l.chunks.length]));
}

/** The machine that made a manifest's push. */
export function pusherOf(m: Manifest): { machine: string; name: string } {
  return m.by ?? { machine: m.machine, name: m.machineName };
}

export interface AgentLog {
  readonly chunks: readonly string[];
  readonly sourceBytes: number;
}

export const MANIFEST_FILE = 'session.json';
/** The refs of pushed sessions: `refs/braid/<machine>/<session id>`. */
export const REF_ROOT = 'refs/braid';
/** The most bytes of a manifest, and of one chunk, a pull reads. */
export const MAX_MANIFEST_BYTES = 1024 * 1024;
export const MAX_CHUNK_BYTES = 256 * 1024 * 1024;

const AGENT_ID = /^(main|agent_[0-9a-z]{26})$/;
const CHUNK = /^\d{6}\.jsonl$/;

export { isMachineId };

export function refOf(machine: string, sessionId: string): string {
  return `${REF_ROOT}/${machine}/${sessionId}`;
}

/** The machine and session a ref names, or why it is refused. */
export function parseRef(ref: string): { machine: string; sessionId: string } | { refused: string } {
  const parts = ref.split('/');
  if (parts.length !== 4 || `${parts[0]}/${parts[1]}` !== REF_ROOT) return { refused: 'not refs/braid/<machine>/<session id>' };
  const [, , machine, sessionId] = parts as [string, string, string, string];
  if (!isMachineId(machine)) return { refused: `"${machine.slice(0, 40)}" is not a machine id` };
  if (!isSessionId(sessionId)) return { refused: `"${sessionId.slice(0, 40)}" is not a session id` };
  return { machine, sessionId };
}

/** The name of an agent log's chunk `n` (from 1). */
export function chunkName(n: number): string {
  return `${String(n).padStart(6, '0')}.jsonl`;
}

export function chunkPath(agent: string, chunk: string): string {
  return `agents/${agent}/${chunk}`;
}

/**
 * A manifest read from a remote, checked before anything of it is used: it must be the session and
 * machine its ref names, and every agent id and chunk name must be one Braid writes (they become
 * paths). Throws a ShareError saying what is wrong.
 */
export function parseManifest(bytes: Buffer, expect: { machine: string; sessionId: string }): Manifest {
  const refuse = (why: string): never => {
    throw new ShareError(`its session.json ${why}`);
  };
  if (bytes.length > MAX_MANIFEST_BYTES) refuse(`is ${bytes.length} bytes, over ${MAX_MANIFEST_BYTES}`);
  let raw: unknown;
  try {
    raw = JSON.parse(bytes.toString('utf8'));
  } catch {
    refuse('is not JSON');
  }
  const m = raw as Partial<Manifest> | null;
  if (!m || typeof m !== 'object' || Array.isArray(m)) return refuse('is not an object');
  if (m.format !== 1) refuse(`has format ${JSON.stringify(m.format)}, not 1 (a newer Braid pushed it?)`);
  if (m.id !== expect.sessionId) refuse(`names session ${JSON.stringify(m.id)}, not the ${expect.sessionId} of its ref`);
  if (m.machine !== expect.machine) refuse(`names machine ${JSON.stringify(m.machine)}, not the ${expect.machine} of its ref`);
  for (const field of ['title', 'author', 'machineName'] as const) if (typeof m[field] !== 'string') refuse(`has no ${field}`);
  if (typeof m.createdAt !== 'number' || !Number.isFinite(m.createdAt)) refuse('has no createdAt');
  const logs = m.logs && typeof m.logs === 'object' && !Array.isArray(m.logs) ? m.logs : refuse('has no logs');
  if (!('main' in logs)) refuse('has no main log');
  for (const [agent, log] of Object.entries(logs)) {
    if (!AGENT_ID.test(agent)) refuse(`names an agent "${agent.slice(0, 40)}" Braid never writes`);
    if (!log || !Array.isArray(log.chunks) || !log.chunks.every((c) => typeof c === 'string' && CHUNK.test(c)))
      refuse(`has chunks of ${agent} that are not NNNNNN.jsonl`);
    if (log.chunks.some((c, i) => c !== chunkName(i + 1))) refuse(`has chunks of ${agent} out of order`);
  }
  const project = m.project && typeof m.project.name === 'string' ? m.project : { name: '' };
  const forked = m.forkedFrom && typeof m.forkedFrom.sessionId === 'string' && isSessionId(m.forkedFrom.sessionId) ? m.forkedFrom : null;
  if (m.by !== undefined && (!m.by || !isMachineId(String(m.by.machine)) || typeof m.by.name !== 'string'))
    refuse('names a pushing machine that is no machine id');
  for (const log of Object.values(logs)) if (!Number.isSafeInteger(log.sourceBytes) || log.sourceBytes < 0) refuse('has a log whose sourceBytes is not a size');
  return { ...(m as Manifest), project, forkedFrom: forked };
}
