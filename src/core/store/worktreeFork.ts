import fs from 'node:fs';
import path from 'node:path';
import { counted } from '../counted';
import { forkOrigin } from '../format/titles';
import { SafeGit } from '../git/safeGit';
import {
  addWorktree,
  branchState,
  bringBack,
  carryChanges,
  pruneWorktrees,
  removeWorktree,
  repositoryOf,
  uncommittedIn,
  WorktreeError,
  type FinishMethod,
  type RepositoryFacts,
} from '../git/worktree';
import { safeReaddir } from '../fs/probe';
import { isWorkspaceKey } from '../workspace/workspaceKey';
import type { SessionState, WorktreeLocation } from '../format/sessionState';
import { forkSession, type ForkedSession } from './fork';
import type { StoreContext } from './storeContext';
import { SessionBusyError, WriterLease } from './writerLease';

/** How a fork into a worktree is made. */
export interface WorktreeForkOptions {
  readonly turn?: number;
  readonly title?: string;
  /** The new branch's name (default: `braid/<the source's title>`, numbered when taken). */
  readonly branch?: string;
  /** The folder worktrees go in (default: `<repository>.worktrees` beside the repository). */
  readonly root?: string;
  /** Carry the checkout's uncommitted changes into the worktree (a patch, untracked files copied). */
  readonly carryChanges?: boolean;
}

/** A worktree fork: the new session, where it runs, and what the user should know (one sentence each). */
export interface WorktreeFork {
  readonly fork: ForkedSession;
  readonly location: WorktreeLocation;
  readonly notes: readonly string[];
}

const GIT_TIMEOUT_MS = 60_000;

/** The checkout a session runs in, through the hardened git: NotARepositoryError outside a work tree. */
export function checkoutOf(state: SessionState): Promise<RepositoryFacts> {
  return repositoryOf(state.workspaceDir);
}

/** What the uncommitted changes mean for a new worktree (one sentence), or undefined when there are none. */
export function uncommittedNote(repo: RepositoryFacts, carried: boolean): string | undefined {
  if (!repo.uncommitted.length) return undefined;
  const shown = repo.uncommitted.slice(0, 5).map((entry) => entry.slice(3));
  const list = `${shown.join(', ')}${repo.uncommitted.length > 5 ? ` and ${repo.uncommitted.length - 5} more` : ''}`;
  return carried
    ? `carried ${counted(repo.uncommitted.length, 'uncommitted change')} into the worktree (${list})`
    : `the worktree starts from the last commit, so it lacks ${counted(repo.uncommitted.length, 'uncommitted change')} of the checkout (${list})`;
}

/** The note about submodules, which a new worktree has empty. */
function submoduleNote(repo: RepositoryFacts, folder: string): string | undefined {
  if (!repo.submodules.length) return undefined;
  return `the worktree's submodules (${repo.submodules.join(', ')}) are not checked out; run \`git submodule update --init\` in ${folder} if the work needs them`;
}

/** The longest slug of a title a branch name takes. */
const BRANCH_SLUG_MAX = 40;

/**
 * A title as the last part of a branch name: lower case, words joined by "-", cut after a whole
 * word ("rewrite-the-notes", never "rewrite-the-no"); a first word longer than the limit is cut.
 */
export function branchSlug(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // accents off: "é" is "e", not a cut
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  if (slug.length <= BRANCH_SLUG_MAX) return slug;
  const cut = slug.lastIndexOf('-', BRANCH_SLUG_MAX);
  return cut > 0 ? slug.slice(0, cut) : slug.slice(0, BRANCH_SLUG_MAX);
}

/** A branch name and folder for the worktree: the ones asked for, else the first free `braid/<title>[-N]`. */
async function placeFor(repo: RepositoryFacts, title: string, options: WorktreeForkOptions): Promise<{ branch: string; folder: string }> {
  const root = options.root ? path.resolve(options.root) : path.join(path.dirname(repo.top), `${path.basename(repo.top)}.worktrees`);
  const folderOf = (branch: string) => path.join(root, branch.replace(/^braid\//, '').replace(/[^A-Za-z0-9._-]+/g, '-'));
  if (options.branch !== undefined) {
    const state = await branchState(repo.git, options.branch);
    if (state === 'invalid') throw new WorktreeError(`"${options.branch}" is not a branch name git accepts; choose another`);
    if (state === 'taken')
      throw new WorktreeError(`branch ${options.branch} exists already in ${repo.top}; choose another name, or leave it out for a new one`);
    const folder = folderOf(options.branch);
    if (fs.existsSync(folder)) throw new WorktreeError(`${folder} exists already; choose another branch name, or remove that folder`);
    return { branch: options.branch, folder };
  }
  const stem = `braid/${branchSlug(forkOrigin(title)) || 'fork'}`;
  for (let n = 1; n < 100; n++) {
    const branch = n === 1 ? stem : `${stem}-${n}`;
    if ((await branchState(repo.git, branch)) === 'free' && !fs.existsSync(folderOf(branch))) return { branch, folder: folderOf(branch) };
  }
  throw new WorktreeError(`every branch name from ${stem} to ${stem}-99 is taken; give one with a branch name of your own`);
}

/**
 * Forks a session into a new git worktree of its repository (docs/architecture.md, Run locations):
 * a new branch from HEAD in a folder beside the repository (or under `root`), and a fork whose
 * tools act there. It belongs to the worktree's workspace key; the source's workspace lists it
 * too. A failure after the worktree was added removes it and its branch again.
 */
export async function forkIntoWorktree(store: StoreContext, sourceId: string, options: WorktreeForkOptions = {}): Promise<WorktreeFork> {
  const source = store.get(sourceId);
  const repo = await checkoutOf(source);
  const { branch, folder } = await placeFor(repo, source.title, options);
  await addWorktree(repo.git, folder, branch, repo.head);
  const notes: string[] = [];
  try {
    const worktree = fs.realpathSync(folder);
    if (options.carryChanges && repo.uncommitted.length) await carryChanges(repo, worktree);
    const uncommitted = uncommittedNote(repo, options.carryChanges === true);
    if (uncommitted) notes.push(uncommitted);
    const sub = submoduleNote(repo, worktree);
    if (sub) notes.push(sub);
    const location: WorktreeLocation = { kind: 'worktree', repository: repo.top, worktree, branch, base: repo.head, originKey: source.workspaceKey };
    const workspaceDir = path.join(worktree, repo.subdir);
    const fork = await forkSession(store, sourceId, {
      ...(options.turn !== undefined ? { turn: options.turn } : {}),
      ...(options.title !== undefined ? { title: options.title } : {}),
      place: { workspaceDir, runLocation: location },
    });
    linkWorktree(store, source.workspaceKey, fork.workspaceKey);
    return { fork, location, notes };
  } catch (err) {
    await removeWorktree(repo.git, folder, branch, true).catch(() => undefined);
    throw err;
  }
}

/** The worktree workspaces whose sessions the tree of `originKey` lists beside its own. */
export function linkedWorkspaces(store: StoreContext, originKey: string): string[] {
  return safeReaddir(store.layout.worktreeLinksDir(originKey)).filter(isWorkspaceKey);
}

function linkWorktree(store: StoreContext, originKey: string, key: string): void {
  if (key === originKey) return;
  const dir = store.layout.worktreeLinksDir(originKey);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, key), '');
}

/** A worktree session's location, or why it has none to act on. */
function liveLocation(state: SessionState): WorktreeLocation {
  const location = state.runLocation;
  if (!location) throw new WorktreeError(`session ${state.id} does not run in a worktree of its own; only a session forked into a worktree can be finished`);
  if (location.finished) throw new WorktreeError(`the worktree of session ${state.id} was finished already (${location.finished.how})`);
  return location;
}

async function gitOfCheckout(location: WorktreeLocation): Promise<SafeGit> {
  const git = fs.existsSync(location.repository) ? await SafeGit.open(location.repository, GIT_TIMEOUT_MS) : undefined;
  if (!git) throw new WorktreeError(`the repository ${location.repository} the worktree came from is gone, or git is not on PATH`);
  return git;
}

/** What Finish did. */
export interface FinishResult {
  readonly how: FinishMethod | 'discard';
  /** Commits of the branch brought into the checkout. */
  readonly commits: number;
  readonly location: WorktreeLocation;
  readonly branchDeleted: boolean;
}

/**
 * Finish: brings the worktree's branch back into the checkout (merge or cherry-pick; `discard`
 * brings nothing), then removes the worktree and, when asked, the branch. Refused while the
 * worktree has uncommitted changes, and while another process writes the session.
 */
export async function finishWorktree(
  store: StoreContext,
  id: string,
  how: FinishMethod | 'discard',
  options: { deleteBranch?: boolean } = {},
): Promise<FinishResult> {
  const dir = store.locate(id);
  const location = liveLocation(store.get(id));
  const git = await gitOfCheckout(location);
  if (fs.existsSync(location.worktree)) {
    const dirty = await uncommittedIn(git, location.worktree);
    if (dirty.length)
      throw new WorktreeError(
        `the worktree at ${location.worktree} has ${counted(dirty.length, 'uncommitted change')} (${dirty
          .slice(0, 5)
          .map((e) => e.slice(3))
          .join(', ')}); commit them there or discard them, then finish`,
      );
  }
  let lease: WriterLease;
  try {
    lease = await WriterLease.acquire(store.layout, dir);
  } catch (err) {
    if (err instanceof SessionBusyError)
      throw new WorktreeError(`session ${id} is open for writing in another window or the CLI; close it there before finishing its worktree`);
    throw err;
  }
  try {
    const commits = how === 'discard' ? 0 : await bringBack(git, how, location.branch, location.base);
    await removeWorktree(git, location.worktree, location.branch, options.deleteBranch === true);
    await store.update(id, (s) => ({ ...s, runLocation: { ...location, finished: { at: Date.now(), how } } }));
    return { how, commits, location, branchDeleted: options.deleteBranch === true };
  } finally {
    await lease.release();
  }
}

/** Re-creates the worktree of a session whose folder was deleted by hand, from its branch. */
export async function recreateWorktree(store: StoreContext, id: string): Promise<WorktreeLocation> {
  const location = liveLocation(store.get(id));
  if (fs.existsSync(location.worktree)) throw new WorktreeError(`the worktree at ${location.worktree} is there; nothing to re-create`);
  const git = await gitOfCheckout(location);
  if ((await branchState(git, location.branch)) !== 'taken')
    throw new WorktreeError(`branch ${location.branch} no longer exists, so the worktree cannot be re-created; fork the session to go on elsewhere`);
  await pruneWorktrees(git);
  await addWorktree(git, location.worktree, location.branch, undefined);
  return location;
}

/** Whether a session runs in a worktree whose folder is gone (deleted by hand) and not finished. */
export function worktreeMissing(state: SessionState): boolean {
  return state.runLocation !== undefined && !state.runLocation.finished && !fs.existsSync(state.runLocation.worktree);
}
