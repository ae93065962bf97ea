// A session whose log could not be written: the cause, as state.json keeps it and the index row
// and the views show it (docs/reference.md, Wire records: Writing a log).

/** What kind of lasting failure stopped a log write. */
export type WriteFailureKind = 'disk-full' | 'permission' | 'folder-removed' | 'io';

/** The mark a session carries from a log write that failed for good until a turn is saved again. */
export interface WriteFailure {
  readonly kind: WriteFailureKind;
  readonly message: string;
  /** When it failed (ms since 1970). */
  readonly at: number;
}

const KIND_OF_CODE: Record<string, WriteFailureKind> = {
  ENOSPC: 'disk-full',
  EDQUOT: 'disk-full',
  EACCES: 'permission',
  EPERM: 'permission',
  EROFS: 'permission',
  ENOENT: 'folder-removed',
};

const KINDS = new Set<string>(['disk-full', 'permission', 'folder-removed', 'io']);

/** The kind of a write error, from its errno code: anything unnamed here is `io`. */
export function writeFailureKind(err: unknown): WriteFailureKind {
  return KIND_OF_CODE[(err as NodeJS.ErrnoException | null)?.code ?? ''] ?? 'io';
}

/** The words a person reads for a kind. */
const SAID: Record<WriteFailureKind, string> = {
  'disk-full': 'the disk is full',
  permission: 'permission denied',
  'folder-removed': 'its folder was removed',
  io: 'an I/O error',
};

/** The sentence a failed turn ends with: what it means, the cause, then the system's message. */
export function writeFailureSentence(f: Pick<WriteFailure, 'kind' | 'message'>): string {
  return `the turn was not saved: the session's log could not be written (${SAID[f.kind]}: ${f.message})`;
}

/** The index row's error text for a marked session: `not saved (<kind>): <message>`. */
export function writeFailureNote(f: Pick<WriteFailure, 'kind' | 'message'>): string {
  return `not saved (${f.kind}): ${f.message}`;
}

/** The mark an index row's error text carries, if it is one {@link writeFailureNote} wrote. */
export function writeFailureOfNote(note: string | null): Pick<WriteFailure, 'kind' | 'message'> | undefined {
  const m = /^not saved \(([a-z-]+)\): ([\s\S]*)$/.exec(note ?? '');
  return m && KINDS.has(m[1]!) ? { kind: m[1] as WriteFailureKind, message: m[2]! } : undefined;
}

/** A state.json's `writeFailure` as read: undefined unless it is a mark Braid writes. */
export function readWriteFailure(raw: unknown): WriteFailure | undefined {
  const r = raw as Partial<WriteFailure> | null;
  if (typeof r !== 'object' || r === null || !KINDS.has(r.kind as string) || typeof r.message !== 'string') return undefined;
  return { kind: r.kind as WriteFailureKind, message: r.message, at: typeof r.at === 'number' && Number.isFinite(r.at) ? r.at : 0 };
}
