// What Sync Sessions says: the dry run's confirmation (what would come in, what would be sent),
// the outcome after the sync (each fork in a sentence of its own), and the log's lines. No vscode
// import, so unit tests read the texts as users do.
import { formatBytes } from '../../core/bytes';
import { counted } from '../../core/counted';
import { labelText } from '../../core/format/titles';
import type { SyncedIn, SyncReport } from '../../core/share/sync';
import type { PushedSession } from '../../core/share/push';
import { dryRunDetails, leftOutLines, pushLogLine, redactionCounts } from './shareText';

/** A sync's dry run: whether there is anything to do, and the confirmation's text. */
export interface SyncSummary {
  /** Sessions that would come in (new or updated) or be sent; none: nothing to sync. */
  readonly changes: number;
  /** The modal's question: "Sync with <remote>?". */
  readonly question: string;
  /** The modal's detail: what would come in, what would be sent (turns, bytes, redactions by kind). */
  readonly detail: string;
}

const count = (pulled: readonly SyncedIn[], outcome: SyncedIn['outcome']) => pulled.filter((s) => s.outcome === outcome).length;

/** The confirmation of a sync, from its dry run. */
export function syncDryRunSummary(report: SyncReport, remote: string): SyncSummary {
  const [fresh, updated, refused] = [count(report.pulled, 'new'), count(report.pulled, 'updated'), count(report.pulled, 'refused')];
  const toSend = report.pushed.filter((r) => r.outcome === 'would-push');
  const turns = toSend.reduce((n, r) => n + r.turns, 0);
  const bytes = toSend.reduce((n, r) => n + r.bytes, 0);
  const kinds = redactionCounts(toSend);
  const dropped = toSend.reduce((n, r) => n + r.droppedLines, 0);
  const lines = [
    fresh + updated ? `Would come in: ${fresh} new, ${updated} updated.` : 'Would come in: nothing.',
    ...(updated ? ['A session continued here too since the last sync becomes a fork that keeps your turns.'] : []),
    ...(refused ? [`${counted(refused, 'session')} of the remote cannot be taken in (the Braid log says why).`] : []),
    toSend.length
      ? `Would be sent: ${counted(toSend.length, 'session')}, ${counted(turns, 'turn')}, ${formatBytes(bytes)} after redaction.`
      : 'Would be sent: nothing.',
    ...(toSend.length ? [kinds.length ? `Redacted: ${kinds.map(([kind, n]) => `${n} ${kind}`).join(', ')}.` : 'Redacted: nothing.'] : []),
    ...(dropped ? [`${counted(dropped, 'line')} that could not be read ${dropped === 1 ? 'is' : 'are'} left out.`] : []),
    ...leftOutLines(report.pushed),
    'Nothing has changed yet. Show Details lists every redaction.',
  ];
  return { changes: fresh + updated + toSend.length, question: `Sync with ${remote}?`, detail: lines.join('\n') };
}

/** The notification when a dry run finds nothing to bring in or send. */
export function nothingToSync(report: SyncReport, remote: string): { text: string; failed: number } {
  const failed = count(report.pulled, 'refused') + report.pushed.filter((r) => r.outcome === 'failed').length;
  const refused = count(report.pulled, 'refused');
  const parts = [
    ...(refused ? [`${counted(refused, 'session')} of the remote cannot be taken in (the Braid log says why).`] : []),
    ...leftOutLines(report.pushed),
  ];
  return { text: `Nothing to sync with ${remote}. ${parts.join(' ')}`.trim(), failed };
}

/** The session this window's chat writes, and whether a turn runs in it (a sync leaves it then: closing it would stop the turn). */
export interface ChatSession {
  readonly id: string;
  readonly running: boolean;
}

/** What the notifications after a sync say. */
export interface SyncOutcome {
  /** The counts in and out: "Synced with <remote>: 1 new, 2 updated in; 1 session sent." and the warnings. */
  readonly text: string;
  /** Sessions that were not synced (left busy, refused, not pushed): the notification is a warning. */
  readonly failed: number;
  /** One sentence per session that became a fork here, with the fork to open. */
  readonly forks: readonly { readonly text: string; readonly forkId: string }[];
  /** Sessions brought in (new, updated, forked) and sessions sent. */
  readonly received: number;
  readonly sent: number;
}

/** The notifications after a sync; `chat` is the session the chat writes here, if any. */
export function syncOutcome(report: SyncReport, remote: string, chat?: ChatSession): SyncOutcome {
  const pulled = report.pulled;
  const [fresh, updated, forked] = [count(pulled, 'new'), count(pulled, 'updated'), count(pulled, 'forked')];
  const sent = report.pushed.filter((r) => r.outcome === 'pushed').length;
  const upToDate = report.pushed.filter((r) => r.outcome === 'up-to-date').length;
  const warnings = [
    ...pulled.filter((s) => s.outcome === 'busy').map((s) => busyText(s, chat)),
    ...pulled.filter((s) => s.outcome === 'refused').map((s) => `${s.title ? quoted(s.title) : s.ref} was refused — see the Braid log.`),
    ...report.pushed.filter((r) => r.outcome === 'failed').map((r) => `${quoted(r.title)} could not be sent — see the Braid log.`),
  ];
  const counts = `Synced with ${remote}: in ${fresh} new, ${updated + forked} updated${forked ? ` (${forked} forked)` : ''}; out ${counted(sent, 'session')}${upToDate ? `, ${upToDate} up to date` : ''}.`;
  return {
    text: [counts, ...warnings].join(' '),
    failed: warnings.length,
    forks: pulled.filter((s) => s.outcome === 'forked' && s.fork).map((s) => ({ text: forkText(s), forkId: s.fork!.id })),
    received: fresh + updated + forked,
    sent,
  };
}

/** The sentence of a session continued on both machines: the session took the other machine's turns, the fork holds this one's. */
export function forkText(s: SyncedIn): string {
  return `${quoted(s.title)} went on on ${s.machineName} too: it now holds those turns; your turns are in the fork ${quoted(s.fork?.title ?? '')}.`;
}

/** Why a session was left for the next sync: its turn runs in this window's chat, or another window or the CLI writes it. */
function busyText(s: SyncedIn, chat: ChatSession | undefined): string {
  if (chat?.id === s.id)
    return chat.running
      ? `${quoted(s.title)} was not synced: a turn is running in it in the chat; sync again when it ends.`
      : `${quoted(s.title)} was not synced: it is open in the chat; close it and sync again.`;
  return `${quoted(s.title)} was not synced: another window or the CLI is writing it; close it there and sync again.`;
}

function quoted(title: string): string {
  return `"${labelText(title).trim() || 'New session'}"`;
}

/**
 * The details document of a sync's dry run: each session that would come in, then what the push
 * would send, every redaction with its sample (`pushed` with the titles as sent).
 */
export function syncDryRunDetails(pulled: readonly SyncedIn[], pushed: readonly PushedSession[], remote: string): string {
  const lines = [`Sync with ${remote}: what would come in (nothing has changed yet)`, ''];
  for (const s of pulled) {
    if (s.outcome === 'refused') lines.push(`${s.ref}: cannot be taken in: ${s.reason ?? ''}`);
    else if (s.outcome !== 'unchanged') lines.push(`${s.id} "${labelText(s.title)}" from ${s.machineName}: ${s.outcome}`);
  }
  if (lines.length === 2) lines.push('nothing');
  return `${lines.join('\n')}\n\n${dryRunDetails(pushed, remote)}`;
}

/** The log's lines of a sync (or its dry run): one per session of the remote taken in or left, then the push's; `failed` ones are warnings. */
export function syncLogLines(report: SyncReport, dryRun: boolean): { line: string; failed: boolean }[] {
  const prefix = dryRun ? 'sync (dry run)' : 'sync';
  return [
    ...report.pulled
      .filter((s) => s.outcome !== 'unchanged')
      .map((s) => ({ line: `${prefix}: ${syncInLogText(s, dryRun)}`, failed: s.outcome === 'refused' || s.outcome === 'busy' })),
    ...report.pushed.map((r) => ({ line: `${prefix} ${pushLogLine(r)}`, failed: r.outcome === 'failed' })),
  ];
}

function syncInLogText(s: SyncedIn, dryRun: boolean): string {
  if (s.outcome === 'refused') return `refused ${s.ref}: ${s.reason ?? ''}`;
  if (s.outcome === 'busy') return `left ${s.id}: ${s.reason ?? ''}`;
  if (dryRun) return `${s.outcome} ${s.id} from ${s.machineName}`;
  const fork = s.fork ? `; this machine's turns are in the fork ${s.fork.id}` : '';
  return `${s.outcome} ${s.id} from ${s.machineName}: ${formatBytes(s.bytes)}${fork}`;
}
