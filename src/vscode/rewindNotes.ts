// What the rewind dialog, its notification, the chat's Undo bar and the undo's notification say,
// in proper English numbers ("1 turn", "2 turns"). No vscode import: unit tests read these.
import { counted } from '../core/counted';
import type { RewindPreview, RewindResult } from '../core/store/rewind';

/** The question of the rewind dialog. */
export function rewindQuestion(preview: RewindPreview): string {
  if (preview.turnsDropped === 0) return 'The conversation is already rewound to this prompt. Restore the files that rewind left?';
  return `Rewind ${counted(preview.turnsDropped, 'turn')} of this session?`;
}

/** What a rewind did, in one sentence: the turns, the files restored or left alone. */
export function rewoundNote(result: RewindResult, files: boolean): string {
  const left = result.skipped.length ? `; left ${result.skipped.join(', ')} alone (changed outside Braid)` : '';
  if (result.turnsDropped === 0) return `Restored ${counted(result.restored.length, 'file')} the last rewind had left${left}.`;
  const turns = `Rewound ${counted(result.turnsDropped, 'turn')}`;
  if (files) return `${turns} and restored ${counted(result.restored.length, 'file')}${left}.`;
  return result.files.length ? `${turns}; the files stay as they are.` : `${turns}.`;
}

/** What an undone rewind brought back. */
export function undoneNote(result: { turns: number; files: readonly string[]; checkpointsRemoved?: readonly string[] }): string {
  const parts = [...(result.turns ? [counted(result.turns, 'turn')] : []), ...(result.files.length ? [counted(result.files.length, 'file')] : [])];
  const one = parts.length === 1 && (result.turns || result.files.length) === 1;
  const done = parts.length === 0 ? 'Undid the rewind.' : `Undid the rewind: ${parts.join(' and ')} ${one ? 'is' : 'are'} back.`;
  const removed = result.checkpointsRemoved ?? [];
  return removed.length ? `${done} Left alone: ${removed.join('; ')}.` : done;
}

/** Said before a rewind into imported turns: their files were never checkpointed. */
export function importedTurnsNote(preview: Pick<RewindPreview, 'importedTurns'>): string | undefined {
  if (!preview.importedTurns) return undefined;
  return `${counted(preview.importedTurns, 'turn')} of these ${preview.importedTurns === 1 ? 'was' : 'were'} imported from another agent: Braid has no checkpoints of the files ${preview.importedTurns === 1 ? 'it' : 'they'} changed, so only the conversation is rewound there.`;
}

/** Said before a rewind into turns a fork took from a pulled session: another machine changed their files. */
export function pulledTurnsNote(preview: Pick<RewindPreview, 'pulledTurns'>): string | undefined {
  if (!preview.pulledTurns) return undefined;
  const one = preview.pulledTurns === 1;
  return `${counted(preview.pulledTurns, 'turn')} of these ${one ? 'was' : 'were'} pulled from another machine: ${one ? 'its' : 'their'} file changes were made there, not here, so only the conversation is rewound there.`;
}

/** What an Undo from the Changes list did: "Undid Braid's changes to a.md.", "… to 2 files: a.md, b.md." */
export function changesUndoneNote(undone: readonly string[]): string {
  if (undone.length === 1) return `Undid Braid's changes to ${undone[0]}.`;
  const shown = undone.slice(0, 3).join(', ');
  return `Undid Braid's changes to ${counted(undone.length, 'file')}: ${shown}${undone.length > 3 ? ', …' : ''}.`;
}

/** The files an Undo (or the undo of one) left alone, and why; undefined when none. */
export function leftAloneNote(skipped: readonly { why: string }[]): string | undefined {
  if (skipped.length === 0) return undefined;
  return `Undo left ${skipped.length === 1 ? 'a file' : `${skipped.length} files`} alone: ${skipped.map((s) => s.why).join('; ')}`;
}
