import os from 'node:os';
import type { StoredState } from '../format/sessionState';
import type { RedactLine } from './push';
import { redactLine } from './redact';

/** The redaction of each session's lines a push sends: its folders made relative, the home folder hidden, `secrets` (the keys Braid knows) removed. */
export function sessionRedaction(secrets: readonly string[], home = os.homedir()): (state: StoredState) => RedactLine {
  return (state) => (line) => redactLine(line, { folders: sessionFolders(state), home, secrets });
}

/** The folders whose paths a push makes relative: the session's workspace folders, its worktree, and the folders it was moved from. */
export function sessionFolders(state: StoredState): string[] {
  const folders = [state.workspaceDir, ...(state.workspaceFolders ?? []), ...(state.relinkedFrom ?? [])];
  if (state.runLocation) folders.push(state.runLocation.worktree);
  return [...new Set(folders.filter(Boolean))];
}
