import { formatBytes } from '../bytes';
import { sessionShortForms } from '../format/sessionShortIds';
import { counted } from '../counted';
import { timeAgo } from '../timeAgo';
import { storedTitleLabel } from '../format/titles';
import type { GcPlan } from './gc';
import type { StorageBytes, StorageReport } from './storage';

// The storage report and the gc proposal as text: `braid storage` and `braid gc` print it, and
// VS Code's Show Storage and Review Removable Storage show it as a read-only document.

/** The sessions the text lists; the rest are counted. */
const SESSION_LINES = 20;

/** A title or folder on one line. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();
/** A stored title, which a rename lets be any length, as a label shows it. */
const titleLine = (title: string) => oneLine(storedTitleLabel(title));

const size = (n: number) => formatBytes(n).padStart(10);
const kinds = (b: StorageBytes) => `${size(b.logs)}  ${size(b.blobs)}  ${size(b.trash)}`;

/** What the surface adds: where the sessions beyond the first 20 are seen, and a closing line (how to free space there). */
export interface StorageTextNotes {
  readonly more: string;
  readonly footer: string;
}

/** The report as `braid storage` prints it and Show Storage shows it. */
export function storageText(report: StorageReport, notes: StorageTextNotes): string {
  const t = report.total;
  const shown = sessionShortForms(report.sessions.map((s) => s.id));
  const lines = [
    `Braid's storage: ${formatBytes(t.bytes)} in ${oneLine(report.root)}`,
    `  logs ${formatBytes(t.logs)}, blobs (checkpoints, images, prompts) ${formatBytes(t.blobs)}, trash ${formatBytes(t.trash)}, other ${formatBytes(t.other)}`,
    '',
    'By workspace',
    `  ${['total', 'logs', 'blobs', 'trash'].map((h) => h.padStart(10)).join('  ')}  folder`,
  ];
  if (report.workspaces.length === 0) lines.push('  (none)');
  for (const w of report.workspaces)
    lines.push(`  ${size(w.bytes)}  ${kinds(w)}  ${oneLine(w.workspaceDir ?? w.workspaceKey)} (${counted(w.sessions, 'session')})`);
  lines.push('', 'By session, largest first', `  ${['total', 'logs', 'blobs'].map((h) => h.padStart(10)).join('  ')}  session`);
  if (report.sessions.length === 0) lines.push('  (none)');
  for (const s of report.sessions.slice(0, SESSION_LINES))
    lines.push(
      `  ${size(s.bytes)}  ${size(s.logs)}  ${size(s.blobs)}  ${shown.get(s.id) ?? s.id}  ${s.title === null ? '(not indexed)' : titleLine(s.title) || '(untitled)'}`,
    );
  if (report.sessions.length > SESSION_LINES) lines.push(`  … and ${report.sessions.length - SESSION_LINES} more (${notes.more})`);
  lines.push('', notes.footer);
  return `${lines.join('\n')}\n`;
}

/**
 * The lines of a gc proposal: each thing it would remove with its size, and the sessions it must
 * leave, each session by the form `shown` gives (its short form).
 */
export function gcPlanText(plan: GcPlan, shown: (id: string) => string): string[] {
  const lines: string[] = [];
  const title = (t: string | null) => (t === null ? '' : `  ${JSON.stringify(titleLine(t) || '(untitled)')}`);
  for (const s of plan.sessions) {
    if (s.busy) {
      lines.push(`  skipped      ${size(s.bytes)}  ${shown(s.id)}${title(s.title)}: ${s.busy}`);
      continue;
    }
    if (s.checkpoints.hashes.length)
      lines.push(
        `  checkpoints  ${size(s.checkpoints.bytes)}  ${shown(s.id)}${title(s.title)}  (${counted(s.checkpoints.hashes.length, 'file image')}; untouched for ${counted(s.untouchedDays, 'day')})`,
      );
    if (s.orphans.hashes.length)
      lines.push(`  orphaned     ${size(s.orphans.bytes)}  ${shown(s.id)}${title(s.title)}  (${counted(s.orphans.hashes.length, 'blob')} no record names)`);
  }
  for (const t of plan.trash)
    lines.push(
      `  trash        ${size(t.bytes)}  ${t.kind === 'session' ? t.id : `partial folder ${oneLine(t.id)}`}  (deleted ${timeAgo(t.trashedAt, plan.now)})`,
    );
  return lines;
}
