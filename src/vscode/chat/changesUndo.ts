import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import type { UndoneChanges } from '../../core/store/changes';
import { reported } from '../reported';
import { changesUndoneNote, leftAloneNote } from '../rewindNotes';
import { showUndoToast } from '../undoToast';
import type { CurrentSession } from './currentSession';

/**
 * After an Undo from the Changes list: a notification of what it did with an Undo of its own (as a
 * rewind's has), which gives the files back what the Undo took; and a warning naming the files
 * either left alone.
 */
export function showChangesUndone(current: CurrentSession, sessionId: string, result: UndoneChanges, logger: Logger): void {
  warnLeftAlone(result);
  if (result.undone.length === 0) return;
  showUndoToast(`changes:${sessionId}`, changesUndoneNote(result.undone), () =>
    reported(
      logger,
      'undo an undo of changes',
      async () => warnLeftAlone(await current.redoChanges(sessionId, result.reverse)),
      'Braid could not undo the undo',
    ),
  );
}

function warnLeftAlone(result: UndoneChanges): void {
  const note = leftAloneNote(result.skipped);
  if (note) void vscode.window.showWarningMessage(note);
}
