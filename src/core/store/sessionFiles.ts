import fs from 'node:fs';
import path from 'node:path';
import { errorMessage } from '../errors';
import { readWhole } from '../tools/confinedFile';
import { WorkspaceFs } from '../tools/workspaceFs';
import type { StoreLayout } from '../format/layout';
import { sessionFolders, type SessionState } from '../format/sessionState';
import { realPath } from '../fs/probe';

/** A recorded file change's file, found again: where it is now, and the folder that confines it. */
export interface LocatedFile {
  readonly full: string;
  readonly workspace: WorkspaceFs;
}

/** The largest file a rewind reads to compare or restore. */
const MAX_REWIND_FILE = 1024 * 1024 * 1024;

/**
 * The files a session's records name, checked at the moment of use: a `file_change` record or a
 * rewind journal is data, not an instruction, so the folder it names must be one of the session's
 * workspace folders (from its state.json), the path must stay inside that folder (links
 * included), and Braid's data folder is never touched. Paths of records written before Braid
 * recorded their folder are relative to the session's workspace folder.
 */
export class SessionFiles {
  private readonly folders: string[];
  private readonly protectedPaths: string[];

  constructor(
    private readonly state: SessionState,
    layout: StoreLayout,
  ) {
    this.folders = sessionFolders(state)
      .map(realPath)
      .filter((f): f is string => f !== undefined);
    this.protectedPaths = layout.protectedFrom(this.folders);
  }

  /**
   * The folder a record's root stands for in this session. A worktree fork's copied records name
   * the checkout it was forked from; the same folder of its worktree is meant (a rewind there
   * never touches the checkout). A re-linked session's records name the folder it was moved from.
   */
  private inRunLocation(root: string): string {
    return placedRoot(this.state, root);
  }

  /** The file of a record, or why it is refused (one sentence). */
  locate(root: string | undefined, relative: string): LocatedFile | { refused: string } {
    const named = root === undefined ? this.state.workspaceDir : this.inRunLocation(root);
    const real = realPath(named);
    if (!real || !this.folders.includes(real)) {
      return { refused: `${relative} was recorded in ${named}, which is not one of this session's workspace folders; it is left alone` };
    }
    const workspace = new WorkspaceFs([real], this.protectedPaths);
    try {
      return { full: workspace.resolve(relative), workspace };
    } catch (err) {
      return { refused: `${errorMessage(err)}; it is left alone` };
    }
  }
}

/**
 * The folder a recorded `root` stands for in a session now: inside the checkout a worktree fork
 * came from, the same folder of its worktree; inside a folder it was re-linked from, its folder
 * now; else the root as recorded.
 */
export function placedRoot(state: Pick<SessionState, 'runLocation' | 'relinkedFrom' | 'workspaceDir'>, root: string): string {
  const moves: Array<[string, string]> = (state.relinkedFrom ?? []).map((from) => [from, state.workspaceDir]);
  if (state.runLocation) moves.push([state.runLocation.repository, state.runLocation.worktree]);
  for (const [from, to] of moves) {
    const rel = path.relative(from, root);
    if (!rel.startsWith('..') && !path.isAbsolute(rel)) return path.join(to, rel);
  }
  return root;
}

/** A file's bytes now (null when absent), read without following a last link or blocking on a FIFO. */
export function currentBytes(file: LocatedFile, asGiven: string): Buffer | null {
  if (!fs.lstatSync(file.full, { throwIfNoEntry: false })) return null;
  return readWhole(file.workspace, file.full, asGiven, MAX_REWIND_FILE, 'too large for a rewind to compare or restore').data;
}
