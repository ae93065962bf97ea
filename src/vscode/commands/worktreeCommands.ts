import path from 'node:path';
import * as vscode from 'vscode';
import { changedFiles, fileAt, NotARepositoryError, type FinishMethod } from '../../core/git/worktree';
import { SafeGit } from '../../core/git/safeGit';
import { checkoutOf, finishWorktree, forkIntoWorktree, recreateWorktree, uncommittedNote, worktreeMissing } from '../../core/store/worktreeFork';
import { sessionLabel } from '../../core/format/titles';
import type { SessionState } from '../../core/format/sessionState';
import { counted } from '../../core/counted';
import { readWorktreeRoot } from '../settings';
import type { BraidCommand } from '../braidCommand';
import { UserFacingError } from '../reported';
import type { CommandContext } from './commandContext';
import { sessionArg } from './sessionArg';
import { turnOfMessage } from './forkRewindCommands';

const OPEN_FOLDER = 'Open Worktree Folder';

/** How the message of a failed fork into a worktree begins. */
export const WORKTREE_FORK_FAILURE = 'Braid could not fork into a worktree';
const RECREATE = 'Re-create Worktree';

/** Opens a worktree fork's folder in a new window: the session belongs to that folder's workspace. */
async function openFolder(state: SessionState): Promise<void> {
  await vscode.commands.executeCommand('vscode.openFolder', vscode.Uri.file(state.workspaceDir), { forceNewWindow: true });
}

/** The session as a worktree fork whose worktree is still there to act on, or a message saying why not. */
function worktreeSession(ctx: CommandContext, id: string): SessionState & { runLocation: NonNullable<SessionState['runLocation']> } {
  const state = ctx.requireStore().get(id);
  if (!state.runLocation) throw new UserFacingError(`"${sessionLabel(state)}" does not run in a worktree of its own; Fork into Worktree makes one that does.`);
  return state as SessionState & { runLocation: NonNullable<SessionState['runLocation']> };
}

/**
 * Braid: Fork into Worktree — a fork whose tools act in a new git worktree of the session's
 * repository. Outside a repository it offers a plain fork; a dirty checkout is named, with the
 * choice to carry its changes.
 */
export function forkIntoWorktreeCommand(ctx: CommandContext): BraidCommand {
  return {
    id: 'braid.forkIntoWorktree',
    failure: WORKTREE_FORK_FAILURE,
    run: async (arg?: unknown) => {
      const id = await sessionArg(arg, ctx);
      if (id) await forkIntoWorktreeAt(ctx, id, undefined);
    },
  };
}

/** A prompt's Worktree action: a fork into a worktree keeping the conversation up to that prompt's turn. */
export async function forkIntoWorktreeAtMessage(ctx: CommandContext, id: string, messageId: string): Promise<void> {
  await forkIntoWorktreeAt(ctx, id, turnOfMessage(ctx, id, messageId));
}

/** The fork into a worktree, whole (`turn` undefined) or up to `turn`, asking about a missing repository or a dirty checkout first. */
async function forkIntoWorktreeAt(ctx: CommandContext, id: string, turn: number | undefined): Promise<void> {
  if (!vscode.workspace.isTrusted)
    throw new UserFacingError('Braid runs no git in an untrusted workspace, so it cannot make a worktree; trust the folder, or use Fork Session.');
  const store = ctx.requireStore();
  let carry = false;
  try {
    const repo = await checkoutOf(store.get(id));
    const note = uncommittedNote(repo, false);
    if (note) {
      const choice = await vscode.window.showWarningMessage(
        `The checkout has ${counted(repo.uncommitted.length, 'uncommitted change')}.`,
        { modal: true, detail: `Without them, ${note}.` },
        'Carry Changes',
        'Fork Without Them',
      );
      if (!choice) return;
      carry = choice === 'Carry Changes';
    }
  } catch (err) {
    if (!(err instanceof NotARepositoryError)) throw err;
    const choice = await vscode.window.showWarningMessage(`${err.message}.`, 'Fork Without Worktree');
    if (choice) await vscode.commands.executeCommand('braid.forkSession', id);
    return;
  }
  const root = readWorktreeRoot();
  const { fork, location, notes } = await forkIntoWorktree(store, id, {
    carryChanges: carry,
    ...(root ? { root } : {}),
    ...(turn !== undefined ? { turn } : {}),
  });
  ctx.revealSession(fork.id);
  const at = turn !== undefined ? ` at turn ${turn}` : '';
  const said = [`Forked "${sessionLabel(store.index.get(id) ?? {})}"${at} into the worktree ${location.worktree} on branch ${location.branch}; it runs there.`];
  for (const note of notes) said.push(`${note[0]!.toUpperCase()}${note.slice(1)}.`);
  const choice = await vscode.window.showInformationMessage(said.join(' '), OPEN_FOLDER);
  if (choice === OPEN_FOLDER) await openFolder(fork);
}

/** Braid: Open Worktree Folder — the worktree fork's folder in a new window. */
export function openWorktreeFolderCommand(ctx: CommandContext): BraidCommand {
  return {
    id: 'braid.openWorktreeFolder',
    failure: 'Braid could not open the worktree',
    run: async (arg?: unknown) => {
      const id = await sessionArg(arg, ctx);
      if (!id) return;
      const state = worktreeSession(ctx, id);
      if (worktreeMissing(state)) return offerRecreate(state);
      await openFolder(state);
    },
  };
}

/** Braid: Re-create Worktree — the folder of a worktree fork, deleted by hand, made again from its branch. */
export function recreateWorktreeCommand(ctx: CommandContext): BraidCommand {
  return {
    id: 'braid.recreateWorktree',
    failure: 'Braid could not re-create the worktree',
    run: async (arg?: unknown) => {
      const id = await sessionArg(arg, ctx);
      if (!id) return;
      const location = await recreateWorktree(ctx.requireStore(), id);
      const choice = await vscode.window.showInformationMessage(`Re-created the worktree ${location.worktree} from branch ${location.branch}.`, OPEN_FOLDER);
      if (choice === OPEN_FOLDER) await openFolder(ctx.requireStore().get(id));
    },
  };
}

async function offerRecreate(state: SessionState): Promise<void> {
  const location = state.runLocation!;
  const choice = await vscode.window.showWarningMessage(
    `The worktree folder ${location.worktree} of "${sessionLabel(state)}" is gone (deleted outside Braid). Re-create it from branch ${location.branch}?`,
    RECREATE,
  );
  if (choice === RECREATE) await vscode.commands.executeCommand('braid.recreateWorktree', state.id);
}

/**
 * What opening a worktree fork in another folder's window offers: its worktree's folder in a new
 * window (the session moves with it), or, when that folder was deleted by hand, to re-create it.
 */
export async function offerRunLocation(ctx: CommandContext, id: string): Promise<void> {
  const state = ctx.requireStore().get(id);
  const location = state.runLocation;
  if (!location || location.finished) return;
  if (worktreeMissing(state)) return offerRecreate(state);
  const here = ctx.workspaceDir && path.resolve(ctx.workspaceDir) === path.resolve(state.workspaceDir);
  if (here) return;
  const choice = await vscode.window.showInformationMessage(
    `"${sessionLabel(state)}" runs in the worktree ${location.worktree} (branch ${location.branch}); it is read-only here.`,
    OPEN_FOLDER,
  );
  if (choice === OPEN_FOLDER) await openFolder(state);
}

type FinishPick = vscode.QuickPickItem & { how: FinishMethod | 'discard' | 'diff' };

/**
 * Braid: Finish Worktree... — merge or cherry-pick the worktree's branch back (or open its diff
 * against the commit it started from), then remove the worktree and, if chosen, the branch.
 */
export function finishWorktreeCommand(ctx: CommandContext): BraidCommand {
  return {
    id: 'braid.finishWorktree',
    failure: 'Braid could not finish the worktree',
    run: async (arg?: unknown) => {
      const id = await sessionArg(arg, ctx);
      if (!id) return;
      if (!vscode.workspace.isTrusted) throw new UserFacingError('Braid runs no git in an untrusted workspace; trust the folder to finish a worktree.');
      const state = worktreeSession(ctx, id);
      const { branch, repository } = state.runLocation;
      const items: FinishPick[] = [
        { how: 'merge', label: `Merge ${branch} into ${path.basename(repository)}`, detail: 'a fast-forward when it can; then the worktree is removed' },
        {
          how: 'cherry-pick',
          label: `Cherry-pick the commits of ${branch}`,
          detail: 'each commit since the fork, onto the checkout; then the worktree is removed',
        },
        { how: 'diff', label: `Open the diff of ${branch} against its base`, detail: 'changes nothing' },
        { how: 'discard', label: 'Remove the worktree, bringing nothing back' },
      ];
      const pick = await vscode.window.showQuickPick(items, { placeHolder: `Finish "${sessionLabel(state)}"` });
      if (!pick) return;
      if (pick.how === 'diff') return vscode.commands.executeCommand('braid.worktreeDiff', id);
      const keep = await vscode.window.showQuickPick(
        [
          { label: `Keep branch ${branch}`, remove: false },
          { label: `Delete branch ${branch}`, remove: true },
        ],
        { placeHolder: 'And the branch?' },
      );
      if (!keep) return;
      const result = await finishWorktree(ctx.requireStore(), id, pick.how, { deleteBranch: keep.remove });
      const brought =
        result.how === 'discard'
          ? 'Brought nothing back'
          : `${result.how === 'merge' ? 'Merged' : 'Cherry-picked'} ${counted(result.commits, 'commit')} of ${branch}`;
      void vscode.window.showInformationMessage(
        `${brought}; removed the worktree ${result.location.worktree}${result.branchDeleted ? ` and branch ${branch}` : ''}.`,
      );
    },
  };
}

/** The scheme of a file's content at a commit of a worktree fork's repository: `braid-git:/<path>?<repository>#<commit>`. */
export const GIT_CONTENT_SCHEME = 'braid-git';

/** Serves `braid-git:` documents: a file at a commit, read through the hardened git. */
export const gitContentProvider: vscode.TextDocumentContentProvider = {
  provideTextDocumentContent: async (uri) => {
    const git = await SafeGit.open(uri.query, 30_000);
    return git ? fileAt(git, uri.fragment, uri.path.slice(1)) : '';
  },
};

/** Braid: the diff of a worktree fork's branch against the commit it started from, in VS Code's multi-file diff editor. */
export function worktreeDiffCommand(ctx: CommandContext): BraidCommand {
  return {
    id: 'braid.worktreeDiff',
    failure: 'Braid could not show the diff',
    run: async (arg?: unknown) => {
      const id = await sessionArg(arg, ctx);
      if (!id) return;
      const { runLocation: location } = worktreeSession(ctx, id);
      const git = await SafeGit.open(location.repository, 30_000);
      if (!git) throw new UserFacingError(`The repository ${location.repository} is gone, or git is not on PATH.`);
      const files = await changedFiles(git, location.base, location.branch);
      if (!files.length) {
        void vscode.window.showInformationMessage(
          `Branch ${location.branch} has no changes against the commit it started from (uncommitted work in the worktree is not on the branch).`,
        );
        return;
      }
      const at = (rev: string, file: string) => vscode.Uri.from({ scheme: GIT_CONTENT_SCHEME, path: `/${file}`, query: location.repository, fragment: rev });
      const resources = files.map((file) => [vscode.Uri.file(path.join(location.repository, file)), at(location.base, file), at(location.branch, file)]);
      await vscode.commands.executeCommand('vscode.changes', `${location.branch} against its base`, resources);
    },
  };
}
