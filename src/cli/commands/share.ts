import os from 'node:os';
import { formatBytes } from '../../core/bytes';
import { readState } from '../../core/format/sessionState';
import { SafeGit } from '../../core/git/safeGit';
import { thisMachine } from '../../core/share/machine';
import { pullSessions, type PulledSession } from '../../core/share/pull';
import { pushSessions, type LineRedaction, type PushedSession, type SessionToPush } from '../../core/share/push';
import { ownSessions } from '../../core/share/ownSessions';
import { projectRoot, projectRootsOf } from '../../core/share/projectRoot';
import { knownSecrets } from '../../core/share/redact';
import { shareRemote, type ShareRemote } from '../../core/share/remote';
import { syncSessions, type SyncedIn, type SyncReport } from '../../core/share/sync';
import { sessionRedaction } from '../../core/share/sessionRedaction';
import { ShareGit } from '../../core/share/shareGit';
import type { SessionStore } from '../../core/store/sessionStore';
import { parseArgs, UsageError, type ParsedArgs } from '../args';
import type { CliContext } from '../context';
import { EXIT_ERROR, EXIT_OK } from '../exitCodes';
import { resolveSessionId } from '../resolveIds';
import { jsonText, oneLine } from '../terminalText';

const GIT_TIMEOUT_MS = 10_000;

/** `push [<session>…|--all] --remote <url-or-git-remote> [--dry-run] [--author NAME] [--json]` */
export async function push(ctx: CliContext, argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const args = parseArgs(argv, { flags: ['all', 'dry-run', 'json'], valued: ['remote', 'author'] });
  const all = args.options.has('all');
  if (all === args.positionals.length > 0) throw new UsageError("name the sessions to push, or --all (this workspace's)");
  const remote = await remoteOf(ctx, args);
  const dryRun = args.options.has('dry-run');
  return ctx.withStore(async (store) => {
    const sessions = all ? ownSessions(store, ctx.workspace) : args.positionals.map((typed) => sessionToPush(store, resolveSessionId(store, typed)));
    const git = await ShareGit.open(ctx.dataDir);
    const rootCommits = await projectRootsOf(sessions);
    const results = await pushSessions({
      git,
      store,
      remote,
      machine: thisMachine(ctx.dataDir, env.BRAID_MACHINE_NAME || undefined),
      author: (args.options.get('author') as string | undefined) ?? os.userInfo().username,
      sessions,
      rootCommits,
      redactFor: sessionRedaction(knownSecrets(env)),
      dryRun,
    });
    if (args.options.has('json')) ctx.out(`${jsonText({ remote: remote.shown, dryRun, sessions: results }, 2)}\n`);
    else ctx.out(pushText(results, remote, dryRun));
    return results.some((r) => r.outcome === 'failed') ? EXIT_ERROR : EXIT_OK;
  });
}

/** `pull --remote <url-or-git-remote> [--json]` */
export async function pull(ctx: CliContext, argv: readonly string[]): Promise<number> {
  const args = parseArgs(argv, { flags: ['json'], valued: ['remote'] });
  if (args.positionals.length) throw new UsageError('pull takes no sessions: it brings every session of this project the remote holds');
  const remote = await remoteOf(ctx, args);
  const store = await ctx.openStore({ create: true });
  try {
    const report = await pullSessions({
      git: await ShareGit.open(ctx.dataDir),
      store,
      remote,
      machine: thisMachine(ctx.dataDir).id,
      workspace: ctx.workspace,
      rootCommit: await projectRoot(ctx.workspace),
    });
    if (args.options.has('json')) ctx.out(`${jsonText({ remote: remote.shown, ...report }, 2)}\n`);
    else ctx.out(pullText(report.sessions, report.otherProjects, remote));
    return report.sessions.some((s) => s.outcome === 'refused') ? EXIT_ERROR : EXIT_OK;
  } finally {
    await store.close();
  }
}

/** `sync --remote <url-or-git-remote> [--dry-run] [--author NAME] [--json]` */
export async function sync(ctx: CliContext, argv: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  const args = parseArgs(argv, { flags: ['dry-run', 'json'], valued: ['remote', 'author'] });
  if (args.positionals.length) throw new UsageError("sync takes no sessions: it syncs this project's sessions");
  const remote = await remoteOf(ctx, args);
  const dryRun = args.options.has('dry-run');
  const store = await ctx.openStore({ create: true });
  try {
    const own = ownSessions(store, ctx.workspace);
    const report = await syncSessions({
      git: await ShareGit.open(ctx.dataDir),
      store,
      remote,
      machine: thisMachine(ctx.dataDir, env.BRAID_MACHINE_NAME || undefined),
      author: (args.options.get('author') as string | undefined) ?? os.userInfo().username,
      workspace: ctx.workspace,
      rootCommit: await projectRoot(ctx.workspace),
      rootCommits: await projectRootsOf(own),
      redactFor: sessionRedaction(knownSecrets(env)),
      dryRun,
    });
    if (args.options.has('json')) ctx.out(`${jsonText({ remote: remote.shown, dryRun, ...report }, 2)}\n`);
    else ctx.out(syncText(report, remote, dryRun));
    const failed = report.pushed.some((r) => r.outcome === 'failed') || report.pulled.some((s) => s.outcome === 'refused' || s.outcome === 'busy');
    return failed ? EXIT_ERROR : EXIT_OK;
  } finally {
    await store.close();
  }
}

/** The remote `--remote` names: a URL or path, or a remote of the workspace's repository. */
async function remoteOf(ctx: CliContext, args: ParsedArgs): Promise<ShareRemote> {
  const spec = args.options.get('remote') as string | undefined;
  if (spec === undefined) throw new UsageError('--remote is required: Braid has no default remote');
  return shareRemote(spec, ctx.workspace, async (name) => {
    const git = await SafeGit.open(ctx.workspace, GIT_TIMEOUT_MS);
    return (await git?.output(['remote', 'get-url', '--', name]))?.trim() || undefined;
  });
}

function sessionToPush(store: SessionStore, id: string): SessionToPush {
  const dir = store.locate(id);
  const state = readState(store.layout.stateFile(dir));
  if (state.shared) throw new UsageError(`${id} was pulled from ${state.shared.remote}; only the machine it was made on pushes it`);
  return { dir, state };
}

function pushText(results: readonly PushedSession[], remote: ShareRemote, dryRun: boolean): string {
  const lines: string[] = [];
  for (const r of results) {
    const name = `${r.id} ${JSON.stringify(r.title)}`;
    if (r.outcome === 'failed') lines.push(`failed     ${name}: ${r.reason ?? ''}`);
    else if (r.outcome === 'up-to-date') continue;
    else
      lines.push(
        `${r.outcome === 'pushed' ? 'pushed    ' : 'would push'} ${name}: ${r.turns} turn${r.turns === 1 ? '' : 's'}, ${formatBytes(r.bytes)}${redactedText(r)}`,
      );
    if (dryRun) for (const x of r.redactions) lines.push(`    redacted ${x.kind} in ${x.where}: ${x.sample}`);
  }
  const sent = results.filter((r) => r.outcome === 'pushed' || r.outcome === 'would-push').length;
  const current = results.filter((r) => r.outcome === 'up-to-date').length;
  const upToDate = current ? `; ${current} up to date there` : '';
  lines.push(
    dryRun
      ? `Nothing was sent (--dry-run); ${sent} session(s) would go to ${remote.shown}${upToDate}.`
      : `${sent} session(s) pushed to ${remote.shown}${upToDate}.`,
  );
  return lines.map(oneLine).join('\n') + '\n';
}

function redactedText(r: PushedSession): string {
  const kinds = new Map<string, number>();
  for (const x of r.redactions as LineRedaction[]) kinds.set(x.kind, (kinds.get(x.kind) ?? 0) + 1);
  const parts = [...kinds].map(([kind, n]) => `${n} ${kind}`);
  const dropped = r.droppedLines ? `; ${r.droppedLines} unreadable line(s) not sent` : '';
  return parts.length || dropped ? ` (redacted: ${parts.join(', ') || 'nothing'}${dropped})` : '';
}

function syncText(report: SyncReport, remote: ShareRemote, dryRun: boolean): string {
  const lines: string[] = [];
  for (const s of report.pulled) {
    const name = `${s.id} ${JSON.stringify(s.title)}`;
    if (s.outcome === 'refused') lines.push(`refused   ${s.ref}: ${s.reason ?? ''}`);
    else if (s.outcome === 'busy') lines.push(`left      ${name}: ${s.reason ?? ''}`);
    else if (s.outcome === 'forked')
      lines.push(
        `forked    ${name}: it went on on ${s.machineName} too; it now holds those turns, and ${s.fork!.id} ${JSON.stringify(s.fork!.title)} holds this machine's`,
      );
    else if (s.outcome !== 'unchanged')
      lines.push(
        `${dryRun ? 'would get' : s.outcome === 'new' ? 'new      ' : 'updated  '} ${name} from ${s.machineName}${dryRun ? '' : `: ${formatBytes(s.bytes)}`}`,
      );
  }
  const count = (o: SyncedIn['outcome']) => report.pulled.filter((s) => s.outcome === o).length;
  const others = report.otherProjects ? `; ${report.otherProjects} of other projects left on the remote` : '';
  lines.push(
    `In: ${count('new')} new, ${count('updated') + count('forked')} updated (${count('forked')} forked), ${count('unchanged')} unchanged, ${count('refused') + count('busy')} not taken${others}.`,
  );
  return lines.map(oneLine).join('\n') + '\n' + pushText(report.pushed, remote, dryRun);
}

function pullText(sessions: readonly PulledSession[], otherProjects: number, remote: ShareRemote): string {
  const lines: string[] = [];
  for (const s of sessions) {
    const who = `by ${s.author} on ${s.machineName}`;
    if (s.outcome === 'refused') lines.push(`refused   ${s.ref}: ${s.reason ?? ''}`);
    else if (s.outcome !== 'unchanged')
      lines.push(`${s.outcome === 'new' ? 'new      ' : 'updated  '} ${s.id} ${JSON.stringify(s.title)} ${who}: ${formatBytes(s.bytes)}`);
  }
  const count = (o: PulledSession['outcome']) => sessions.filter((s) => s.outcome === o).length;
  const others = otherProjects ? `; ${otherProjects} of other projects left on the remote` : '';
  lines.push(`From ${remote.shown}: ${count('new')} new, ${count('updated')} updated, ${count('unchanged')} unchanged, ${count('refused')} refused${others}.`);
  return lines.map(oneLine).join('\n') + '\n';
}
