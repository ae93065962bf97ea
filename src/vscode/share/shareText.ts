// What Push Sessions and Pull Shared Sessions say: the dry run's summary and its details, the
// outcome of a push or a pull. No vscode import, so unit tests read the texts as users do.
import { formatBytes } from '../../core/bytes';
import { counted } from '../../core/counted';
import { labelText } from '../../core/format/titles';
import type { PullReport } from '../../core/share/pull';
import type { PushedSession } from '../../core/share/push';

/** What a dry run found: the sessions that would be sent, and the confirmation's text. */
export interface DryRunSummary {
  /** The sessions a push would send (the others are up to date or failed). */
  readonly toSend: readonly PushedSession[];
  /** The modal's question: "Push 2 sessions to <remote>?". */
  readonly question: string;
  /** The modal's detail: turns, bytes, redactions by kind, what is left out. */
  readonly detail: string;
}

/** The confirmation of a push, from its dry run's results. */
export function dryRunSummary(results: readonly PushedSession[], remote: string): DryRunSummary {
  const toSend = results.filter((r) => r.outcome === 'would-push');
  const turns = toSend.reduce((n, r) => n + r.turns, 0);
  const bytes = toSend.reduce((n, r) => n + r.bytes, 0);
  const kinds = redactionCounts(toSend);
  const dropped = toSend.reduce((n, r) => n + r.droppedLines, 0);
  const lines = [
    `${counted(toSend.length, 'session')} would be sent: ${counted(turns, 'turn')}, ${formatBytes(bytes)} after redaction.`,
    kinds.length ? `Redacted: ${kinds.map(([kind, n]) => `${n} ${kind}`).join(', ')}.` : 'Redacted: nothing.',
    ...(dropped ? [`${counted(dropped, 'line')} that could not be read ${dropped === 1 ? 'is' : 'are'} left out.`] : []),
    ...leftOutLines(results),
    'Nothing has been sent yet. Show Details lists every redaction.',
  ];
  return { toSend, question: `Push ${counted(toSend.length, 'session')} to ${remote}?`, detail: lines.join('\n') };
}

/** The up-to-date and failed sessions of a dry run or a push, in a line each (none when there are none). */
export function leftOutLines(results: readonly PushedSession[]): string[] {
  const upToDate = results.filter((r) => r.outcome === 'up-to-date').length;
  const failed = results.filter((r) => r.outcome === 'failed').length;
  return [
    ...(upToDate ? [`${counted(upToDate, 'session')} ${upToDate === 1 ? 'is' : 'are'} up to date there.`] : []),
    ...(failed ? [`${counted(failed, 'session')} cannot be pushed (the Braid log says why).`] : []),
  ];
}

/** How many redactions of each kind, most first. */
export function redactionCounts(results: readonly PushedSession[]): [string, number][] {
  const kinds = new Map<string, number>();
  for (const r of results) for (const x of r.redactions) kinds.set(x.kind, (kinds.get(x.kind) ?? 0) + 1);
  return [...kinds].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/**
 * The details document of a dry run: each session (its title as the results carry it: the command
 * gives the title as sent) with what it would send, and every redaction with its sample.
 */
export function dryRunDetails(results: readonly PushedSession[], remote: string): string {
  const lines = [`Push to ${remote}: what would be sent (nothing has been sent yet; titles as they are sent)`, ''];
  for (const r of results) {
    const name = `${r.id} "${labelText(r.title)}"`;
    if (r.outcome === 'up-to-date') lines.push(`${name}: up to date`);
    else if (r.outcome === 'failed') lines.push(`${name}: cannot be pushed: ${r.reason ?? ''}`);
    else {
      const dropped = r.droppedLines ? `; ${counted(r.droppedLines, 'unreadable line')} left out` : '';
      lines.push(`${name}: ${counted(r.turns, 'turn')}, ${formatBytes(r.bytes)}${dropped}`);
      if (r.redactions.length === 0) lines.push('    nothing redacted');
      for (const x of r.redactions) lines.push(`    redacted ${x.kind} in ${x.where}: ${x.sample}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** The notification after a push: "Pushed 3 sessions to <remote>; 2 up to date", and the failures' count. */
export function pushOutcome(results: readonly PushedSession[], remote: string): { text: string; failed: number } {
  const pushed = results.filter((r) => r.outcome === 'pushed').length;
  const upToDate = results.filter((r) => r.outcome === 'up-to-date').length;
  const failed = results.filter((r) => r.outcome === 'failed').length;
  const parts = [`Pushed ${counted(pushed, 'session')} to ${remote}`];
  if (upToDate) parts.push(`${upToDate} up to date`);
  if (failed) parts.push(`${failed} failed — see the Braid log`);
  return { text: `${parts.join('; ')}.`, failed };
}

/** The notification when a dry run finds nothing to send: every session up to date there, or none can be pushed. */
export function nothingToPush(results: readonly PushedSession[], remote: string): { text: string; failed: number } {
  const failed = results.filter((r) => r.outcome === 'failed').length;
  return { text: `Nothing to push to ${remote}. ${leftOutLines(results).join(' ')}`.trim(), failed };
}

/** The notification after a pull: "Pulled 2 new, 1 updated from <remote>; 1 refused — see the Braid log". */
export function pullOutcome(report: PullReport, remote: string): { text: string; refused: number; changed: number } {
  const count = (o: string) => report.sessions.filter((s) => s.outcome === o).length;
  const refused = count('refused');
  const parts = [`Pulled ${count('new')} new, ${count('updated')} updated from ${remote}`];
  if (count('unchanged')) parts.push(`${count('unchanged')} unchanged`);
  if (report.otherProjects) parts.push(`${counted(report.otherProjects, 'session')} of other projects left there`);
  if (refused) parts.push(`${refused} refused — see the Braid log`);
  return { text: `${parts.join('; ')}.`, refused, changed: count('new') + count('updated') };
}

/** The log's line for one session of a push. */
export function pushLogLine(r: PushedSession): string {
  const what =
    r.outcome === 'failed'
      ? `failed: ${r.reason ?? ''}`
      : r.outcome === 'up-to-date'
        ? 'up to date'
        : `${r.outcome}: ${counted(r.turns, 'turn')}, ${formatBytes(r.bytes)}`;
  return `push: ${r.id} ${what}`;
}

/** The log's line for one ref of a pull. */
export function pullLogLine(s: PullReport['sessions'][number]): string {
  if (s.outcome === 'refused') return `pull: refused ${s.ref}: ${s.reason ?? ''}`;
  return `pull: ${s.outcome} ${s.id} by ${s.author} on ${s.machineName}: ${formatBytes(s.bytes)}`;
}

/** An error of shareRemote as the input box shows it: the CLI's option name left out. */
export function remoteInputMessage(message: string): string {
  return message.replace(/^--remote /, '');
}
