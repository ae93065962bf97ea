import fs from 'node:fs';
import { sha256Hex } from '../hash';
import { ToolError } from './workspaceFs';

// Read before write: a session changes an existing file only when the conversation holds the
// version on disk now, read by read_file or written by the session itself. What the session has
// seen is read from the conversation's own tool results (each names the file and the hash of its
// bytes), so a fork or a rewind sees exactly what its history saw, and a compaction that replaced
// the reads by a summary asks for them again: the model no longer has those bytes before it.

/** What a tool result says the session saw of a file: its path as shown, and the sha256 of its whole bytes then. */
export interface SeenFile {
  readonly path: string;
  readonly sha256: string;
}

/** The tools whose results name the version of a file the model has seen. */
const SEEING_TOOLS = new Set(['read_file', 'write_file', 'edit_file']);

/** A tool result message as the conversation holds it (only what this file reads of it). */
interface ToolResultLike {
  readonly role: string;
  readonly toolName?: string;
  readonly isError?: boolean;
  readonly details?: unknown;
}

/** The file a result's details name as seen, when they name one. */
function seenIn(details: unknown): SeenFile | undefined {
  const seen = (details as { seen?: Partial<SeenFile> } | undefined)?.seen;
  return typeof seen?.path === 'string' && typeof seen.sha256 === 'string' ? { path: seen.path, sha256: seen.sha256 } : undefined;
}

/** The version each file was last seen at in `messages` (read or written), by the path as shown. */
export function seenFiles(messages: readonly unknown[]): Map<string, string> {
  const seen = new Map<string, string>();
  for (const m of messages as readonly ToolResultLike[]) {
    if (m.role !== 'toolResult' || m.isError || !SEEING_TOOLS.has(m.toolName ?? '')) continue;
    const file = seenIn(m.details);
    if (file) seen.set(file.path, file.sha256);
  }
  return seen;
}

/** The sha256 of a whole file read through an open descriptor, from its first byte. */
export function hashOpenFile(fd: number, size: number): string {
  const bytes = Buffer.alloc(size);
  let at = 0;
  while (at < size) {
    const n = fs.readSync(fd, bytes, at, size - at, at);
    if (n === 0) break;
    at += n;
  }
  return sha256Hex(bytes.subarray(0, at));
}

/**
 * Refuses a change to an existing file unless the session has seen its current bytes: never read,
 * or changed on disk since (by a command, the user or another program), the model reads it first.
 */
export function requireSeen(seen: ReadonlyMap<string, string>, shown: string, before: Buffer): void {
  const known = seen.get(shown);
  if (known === undefined) throw new ToolError(`${shown} has not been read in this session; read it with read_file first, then change it.`);
  if (known !== sha256Hex(before))
    throw new ToolError(
      `${shown} changed on disk since this session last read it (a command, the user or another program changed it); read it again with read_file, then change it.`,
    );
}
