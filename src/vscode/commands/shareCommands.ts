import os from 'node:os';
import * as vscode from 'vscode';
import { counted } from '../../core/counted';
import { labelText } from '../../core/format/titles';
import { projectRoot, projectRootsOf } from '../../core/share/projectRoot';
import { thisMachine } from '../../core/share/machine';
import { ownSessions } from '../../core/share/ownSessions';
import { pullSessions } from '../../core/share/pull';
import { pushSessions, sentTitle, type PushedSession, type PushRequest, type SessionToPush } from '../../core/share/push';
import { syncSessions, type SyncReport, type SyncRequest } from '../../core/share/sync';
import { knownSecrets } from '../../core/share/redact';
import { sessionRedaction } from '../../core/share/sessionRedaction';
import { ShareError } from '../../core/share/shareError';
import { ShareGit } from '../../core/share/shareGit';
import type { SessionStore } from '../../core/store/sessionStore';
import type { StoredState } from '../../core/format/sessionState';
import { timeAgo } from '../../core/timeAgo';
import { storedApiKeys } from '../apiKeys';
import type { BraidCommand } from '../braidCommand';
import type { CurrentSession } from '../chat/currentSession';
import { UserFacingError } from '../reported';
import type { PushReviewDocument } from '../share/pushReview';
import { askRemote, type NamedRemote } from '../share/remoteInput';
import type { ShareMemory } from '../share/shareMemory';
import { dryRunDetails, dryRunSummary, nothingToPush, pullLogLine, pullOutcome, pushLogLine, pushOutcome } from '../share/shareText';
import { nothingToSync, syncDryRunDetails, syncDryRunSummary, syncLogLines, syncOutcome, type SyncOutcome } from '../share/syncText';
import type { CommandContext } from './commandContext';

/** What the two commands keep and show besides the command context. */
export interface ShareDeps {
  readonly memory: ShareMemory;
  readonly review: PushReviewDocument;
  readonly secrets: vscode.SecretStorage;
}

const PUSH_FAILURE = 'Braid could not push the sessions';
const PULL_FAILURE = 'Braid could not pull the sessions';
const SYNC_FAILURE = 'Braid could not sync the sessions';

/** Why the chat shows its session read-only while a sync brings in what another machine added to it. */
const SYNCING = 'Braid is syncing this session with a git remote; it opens for writing again when the sync ends.';

/**
 * Braid: Push Sessions to Git Remote…, Pull Shared Sessions from Git Remote… and Sync Sessions with
 * Git Remote…: never automatic, and a push or a sync sends nothing before the user has seen its
 * dry run and confirmed it.
 */
export function shareCommands(ctx: CommandContext, deps: ShareDeps): BraidCommand[] {
  return [
    { id: 'braid.pushSessions', failure: PUSH_FAILURE, run: () => userFacing(PUSH_FAILURE, () => push(ctx, deps)) },
    { id: 'braid.pullSessions', failure: PULL_FAILURE, run: () => userFacing(PULL_FAILURE, () => pull(ctx, deps)) },
    { id: 'braid.syncSessions', failure: SYNC_FAILURE, run: () => userFacing(SYNC_FAILURE, () => sync(ctx, deps)) },
  ];
}

/** A push: the sessions picked, the remote named, a dry run shown and confirmed, then the push. */
async function push(ctx: CommandContext, deps: ShareDeps): Promise<void> {
  const { store, workspaceDir } = shareWorkspace(ctx, 'push');
  const sessions = await pickSessions(store, workspaceDir);
  if (!sessions) return;
  const named = await askRemote(deps.memory, workspaceDir, 'Push Sessions to Git Remote');
  if (!named) return;
  await deps.memory.rememberRemote(named.kept);
  const shown = named.remote.shown;
  const request = await pushRequest(store, named, sessions, deps.secrets);
  const dry = await progress(`Reading what a push to ${shown} would send`, () => pushSessions({ ...request, dryRun: true }));
  logPush(ctx, dry);
  const summary = dryRunSummary(dry, shown);
  if (summary.toSend.length === 0) return void sayOutcome(reviewed(deps.review, nothingToPush(dry, shown)));
  const details = () => dryRunDetails(withSentTitles(dry, request.sessions, request.redactFor), shown);
  if (!(await confirm(deps.review, summary, details, 'Push'))) return;
  const toSend = new Set(summary.toSend.map((r) => r.id));
  const results = await progress(`Pushing ${counted(toSend.size, 'session')} to ${shown}`, () =>
    // What the dry run showed, and no more: a turn that ended since waits for the next push.
    pushSessions({ ...request, sessions: sessions.filter((s) => toSend.has(s.state.id)), dryRun: false, upTo: endsOf(dry) }),
  );
  logPush(ctx, results);
  const outcome = pushOutcome([...results, ...dry.filter((r) => !toSend.has(r.id))], shown);
  const pushed = results.filter((r) => r.outcome === 'pushed').length;
  if (pushed) await deps.memory.record({ kind: 'push', at: Date.now(), remote: shown, sessions: pushed });
  sayOutcome(outcome);
}

function endsOf(results: readonly PushedSession[]): Map<string, Readonly<Record<string, number>>> {
  return new Map(results.flatMap((r) => (r.ends ? [[r.id, r.ends] as const] : [])));
}

/** A pull into this workspace; the Sessions tree shows what it brought as the index takes it in. */
async function pull(ctx: CommandContext, deps: ShareDeps): Promise<void> {
  const { store, workspaceDir } = shareWorkspace(ctx, 'pull');
  const named = await askRemote(deps.memory, workspaceDir, 'Pull Shared Sessions from Git Remote');
  if (!named) return;
  await deps.memory.rememberRemote(named.kept);
  const dataDir = store.layout.root;
  const report = await progress(`Pulling sessions from ${named.remote.shown}`, async () =>
    pullSessions({
      git: await ShareGit.open(dataDir),
      store,
      remote: named.remote,
      machine: thisMachine(dataDir).id,
      workspace: workspaceDir,
      rootCommit: await projectRoot(workspaceDir),
    }),
  );
  for (const s of report.sessions) ctx.logger[s.outcome === 'refused' ? 'warn' : 'info'](pullLogLine(s));
  const outcome = pullOutcome(report, named.remote.shown);
  if (outcome.changed || !outcome.refused) await deps.memory.record({ kind: 'pull', at: Date.now(), remote: named.remote.shown, sessions: outcome.changed });
  sayOutcome({ text: outcome.text, failed: outcome.refused });
}

/**
 * A sync with the remote: its dry run (what would come in, what would be sent) shown and confirmed,
 * then the sync. The chat's own session, when the remote has more of it, is closed for the sync
 * and opened again after (see CurrentSession.closedWhile); the Sessions tree shows what came in as
 * the index takes it in.
 */
async function sync(ctx: CommandContext, deps: ShareDeps): Promise<void> {
  const { store, workspaceDir } = shareWorkspace(ctx, 'sync');
  const named = await askRemote(deps.memory, workspaceDir, 'Sync Sessions with Git Remote');
  if (!named) return;
  await deps.memory.rememberRemote(named.kept);
  const shown = named.remote.shown;
  const own = ownSessions(store, workspaceDir);
  const request = await syncRequest(store, named, workspaceDir, own, deps.secrets);
  const dry = await progress(`Reading what a sync with ${shown} would bring and send`, () => syncSessions({ ...request, dryRun: true }));
  logSync(ctx, dry, true);
  const summary = syncDryRunSummary(dry, shown);
  if (summary.changes === 0) {
    const nothing = reviewed(deps.review, nothingToSync(dry, shown));
    if (!nothing.failed) await deps.memory.record({ kind: 'sync', at: Date.now(), remote: shown, sessions: 0, sent: 0 });
    return void sayOutcome(nothing);
  }
  const details = () => syncDryRunDetails(dry.pulled, withSentTitles(dry.pushed, own, request.redactFor), shown);
  if (!(await confirm(deps.review, summary, details, 'Sync'))) return;
  const chat = ctx.chat.current;
  const report = await progress(`Syncing sessions with ${shown}`, () =>
    releasingChat(chat, dry, () => syncSessions({ ...request, dryRun: false, upTo: endsOf(dry.pushed) })),
  );
  logSync(ctx, report, false);
  const outcome = syncOutcome(report, shown, chat.writing);
  if (outcome.received || outcome.sent || !outcome.failed)
    await deps.memory.record({ kind: 'sync', at: Date.now(), remote: shown, sessions: outcome.received, sent: outcome.sent });
  sayOutcome(outcome);
  offerForks(ctx, outcome);
}

/** A sync of this workspace's sessions, those it sends redacted of the keys Braid knows, as a push's are. */
async function syncRequest(
  store: SessionStore,
  named: NamedRemote,
  workspaceDir: string,
  own: SessionToPush[],
  secrets: vscode.SecretStorage,
): Promise<Omit<SyncRequest, 'dryRun'>> {
  const { sessions: _picked, ...push } = await pushRequest(store, named, own, secrets);
  return { ...push, workspace: workspaceDir, rootCommit: await projectRoot(workspaceDir) };
}

/** Runs the sync with the chat's session closed for it when the dry run found more of it on the remote (its writer lease would leave it busy). */
function releasingChat(chat: CurrentSession, dry: SyncReport, work: () => Promise<SyncReport>): Promise<SyncReport> {
  const open = chat.writing;
  const comesIn = open && dry.pulled.some((s) => s.id === open.id && s.outcome === 'updated');
  return comesIn ? chat.closedWhile(open.id, SYNCING, work) : work();
}

function logSync(ctx: CommandContext, report: SyncReport, dryRun: boolean): void {
  for (const { line, failed } of syncLogLines(report, dryRun)) ctx.logger[failed ? 'warn' : 'info'](line);
}

/** Each session that became a fork here in a notification of its own, offering to open the fork (shown in the Sessions tree too). */
function offerForks(ctx: CommandContext, outcome: SyncOutcome): void {
  for (const fork of outcome.forks)
    void vscode.window.showInformationMessage(fork.text, 'Open Fork').then(async (pick) => {
      if (!pick) return;
      await vscode.commands.executeCommand('braid.openSession', { id: fork.forkId });
      ctx.revealSession(fork.forkId);
    });
}

/** The store and folder a push, pull or sync works in; refused in an untrusted workspace (Braid runs no git there) and without a folder. */
function shareWorkspace(ctx: CommandContext, verb: 'push' | 'pull' | 'sync'): { store: SessionStore; workspaceDir: string } {
  if (!vscode.workspace.isTrusted) throw new UserFacingError(`Braid runs no git in an untrusted workspace; trust the folder to ${verb} sessions.`);
  if (!ctx.workspaceDir) throw new UserFacingError(`Open a folder to ${verb} its sessions.`);
  return { store: ctx.requireStore(), workspaceDir: ctx.workspaceDir };
}

type SessionPick = vscode.QuickPickItem & { readonly session?: SessionToPush };

/** The sessions to push, picked among this workspace's own (newest first), "All sessions of this workspace" at the top. */
async function pickSessions(store: SessionStore, workspaceDir: string): Promise<SessionToPush[] | undefined> {
  const own = ownSessions(store, workspaceDir);
  if (own.length === 0) throw new UserFacingError('This workspace has no sessions of its own to push.');
  const rows = own.map((session) => ({ session, row: store.index.get(session.state.id) }));
  rows.sort((a, b) => (b.row?.updatedAt ?? 0) - (a.row?.updatedAt ?? 0));
  const all: SessionPick = { label: 'All sessions of this workspace', description: counted(own.length, 'session') };
  const items: SessionPick[] = rows.map(({ session, row }) => ({
    label: labelText(session.state.title) || 'New session',
    description: [row && timeAgo(row.updatedAt), row && counted(row.turnCount, 'turn'), session.state.archived && 'archived'].filter(Boolean).join(' · '),
    session,
  }));
  const picked = await vscode.window.showQuickPick([all, ...items], {
    title: 'Push Sessions to Git Remote',
    placeHolder: 'The sessions to push: a dry run shows what would be sent before anything is',
    canPickMany: true,
    matchOnDescription: true,
  });
  if (!picked?.length) return undefined;
  return picked.includes(all) ? own : picked.flatMap((p) => (p.session ? [p.session] : []));
}

/** A push of `sessions` to the remote, their lines redacted of the keys Braid knows (SecretStorage's and the environment's). */
async function pushRequest(
  store: SessionStore,
  named: NamedRemote,
  sessions: SessionToPush[],
  secrets: vscode.SecretStorage,
): Promise<Omit<PushRequest, 'dryRun'>> {
  const dataDir = store.layout.root;
  return {
    git: await ShareGit.open(dataDir),
    store,
    remote: named.remote,
    machine: thisMachine(dataDir),
    author: os.userInfo().username,
    sessions,
    rootCommits: await projectRootsOf(sessions),
    redactFor: sessionRedaction([...knownSecrets(process.env), ...(await storedApiKeys(secrets))]),
  };
}

/** A dry run with nothing to do, said in the review document too (a tab left open from an earlier dry run shows this one). */
function reviewed<T extends { text: string }>(review: PushReviewDocument, nothing: T): T {
  review.update(`${nothing.text}\n`);
  return nothing;
}

/** The dry run's summary in a modal dialog; Show Details opens every redaction and asks again. True on `action` (Push, Sync). */
async function confirm(review: PushReviewDocument, summary: { question: string; detail: string }, details: () => string, action: string): Promise<boolean> {
  review.update(details()); // a tab left open from an earlier dry run shows this one's
  for (;;) {
    const choice = await vscode.window.showWarningMessage(summary.question, { modal: true, detail: summary.detail }, action, 'Show Details');
    if (choice !== 'Show Details') return choice === action;
    await review.show(details());
  }
}

/** The results with each session's title as the push sends it (redacted), for the details of what leaves. */
function withSentTitles(results: readonly PushedSession[], sessions: readonly SessionToPush[], redactFor: PushRequest['redactFor']): PushedSession[] {
  const states = new Map<string, StoredState>(sessions.map((s) => [s.state.id, s.state]));
  return results.map((r) => {
    const state = states.get(r.id);
    return state ? { ...r, title: sentTitle(redactFor(state), state.title) } : r;
  });
}

function logPush(ctx: CommandContext, results: readonly PushedSession[]): void {
  for (const r of results) ctx.logger[r.outcome === 'failed' ? 'warn' : 'info'](pushLogLine(r));
}

/** The outcome in a notification: a warning offering the log when something failed. */
function sayOutcome(outcome: { text: string; failed: number }): void {
  if (!outcome.failed) return void vscode.window.showInformationMessage(outcome.text);
  void vscode.window.showWarningMessage(outcome.text, 'Show Log').then((pick) => pick && vscode.commands.executeCommand('braid.showLog'));
}

function progress<T>(title: string, work: () => Promise<T>): Thenable<T> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: false }, work);
}

/** Runs `work`; a ShareError (git missing, the remote unreachable or refusing) is said to the user as it is, after `failure`. */
async function userFacing(failure: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (err) {
    throw err instanceof ShareError ? new UserFacingError(`${failure}: ${err.message}`) : err;
  }
}
