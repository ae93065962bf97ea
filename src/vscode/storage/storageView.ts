// Braid: Show Storage and Review Removable Storage…: the storage report and the gc proposal as
// read-only documents (nothing to save or edit), and the removal behind a modal confirmation.
import * as vscode from 'vscode';
import { bytesOfMB, formatBytes } from '../../core/bytes';
import { counted } from '../../core/counted';
import { errorMessage } from '../../core/errors';
import type { Logger } from '../../core/logger';
import { planGc, runGc, type GcPlan } from '../../core/store/gc';
import type { SessionStore } from '../../core/store/sessionStore';
import { storageReport } from '../../core/store/storage';
import { gcPlanText, storageText } from '../../core/store/storageText';
import { storeShortForms } from '../../core/format/sessionShortIds';
import { Disposable } from '../disposable';
import { readStorageBudgetMB } from '../settings';

/** The scheme of the storage documents: braid-storage:/Braid Storage and braid-storage:/Removable Storage. */
export const STORAGE_SCHEME = 'braid-storage';
export const REVIEW_STORAGE_COMMAND = 'braid.reviewStorage';
export const SHOW_STORAGE_COMMAND = 'braid.showStorage';

const REPORT_URI = vscode.Uri.from({ scheme: STORAGE_SCHEME, path: '/Braid Storage' });
const PROPOSAL_URI = vscode.Uri.from({ scheme: STORAGE_SCHEME, path: '/Removable Storage' });

const VIEW_NOTES = {
  more: '`braid storage --json` lists every one',
  footer: 'Review Removable Storage… (the button above, or the command) lists what could be removed and asks before removing anything.',
};

/** The two documents, built from the disk each time VS Code asks (opening, or a change announced after a removal). */
export class StorageDocuments extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly changed = this._register(new vscode.EventEmitter<vscode.Uri>());
  readonly onDidChange = this.changed.event;
  /** The proposal the review document shows and the confirmation removes. */
  private plan: GcPlan | undefined;

  constructor(private readonly store: SessionStore) {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(STORAGE_SCHEME, this));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    if (uri.path === PROPOSAL_URI.path) return this.proposalText();
    const report = storageReport(this.store.layout, this.store.index);
    const budget = readStorageBudgetMB();
    const budgetLine =
      budget > 0
        ? `Budget (braid.storage.budgetMB): ${budget} MB${report.total.bytes > bytesOfMB(budget) ? ', exceeded' : ''}`
        : 'No budget set (braid.storage.budgetMB: 0).';
    return `${storageText(report, VIEW_NOTES)}${budgetLine}\n`;
  }

  private proposalText(): string {
    const plan = this.plan;
    if (!plan) return 'Nothing proposed yet: run Braid: Review Removable Storage….\n';
    const lines = gcPlanText(plan, storeShortForms(this.store.layout));
    if (lines.length === 0) return 'Nothing to remove.\n';
    return [
      `Braid could remove ${formatBytes(plan.bytes)}:`,
      ...lines,
      '',
      `Checkpoints are the copies of files a rewind restores; they are proposed for sessions untouched for ${plan.olderThanDays} days.`,
      "The prompts' images are never removed. A rewind that needs a removed checkpoint leaves that file as it is.",
      'Nothing is removed until you confirm.',
      '',
    ].join('\n');
  }

  async showReport(): Promise<void> {
    this.changed.fire(REPORT_URI);
    await vscode.window.showTextDocument(REPORT_URI, { preview: false });
  }

  /** Shows what gc would remove, asks in a modal dialog, and removes it only on Remove. */
  async review(logger: Logger): Promise<void> {
    const plan = (this.plan = planGc(this.store));
    this.changed.fire(PROPOSAL_URI);
    const removable = plan.sessions.filter((s) => !s.busy);
    if (removable.length === 0 && plan.trash.length === 0) {
      const busy = plan.sessions.length;
      void vscode.window.showInformationMessage(
        busy
          ? `Nothing can be removed now: ${counted(busy, 'session')} with removable blobs ${busy === 1 ? 'is' : 'are'} being written.`
          : 'Nothing to remove.',
      );
      return;
    }
    await vscode.window.showTextDocument(PROPOSAL_URI, { preview: false });
    const detail = `Checkpoints and orphaned blobs of ${counted(removable.length, 'session')}, ${counted(plan.trash.length, 'trash entry', 'trash entries')}. The document lists each with its size.`;
    const choice = await vscode.window.showWarningMessage(`Remove ${formatBytes(plan.bytes)} of Braid's storage?`, { modal: true, detail }, 'Remove');
    if (choice !== 'Remove') return;
    const result = await runGc(this.store, plan);
    for (const s of result.sessions) logger.info(`gc: removed ${counted(s.checkpoints + s.orphans, 'blob')} of session ${s.id}: ${formatBytes(s.bytes)}`);
    for (const t of result.trash)
      logger.info(`gc: purged ${t.kind === 'session' ? `session ${t.id}` : `the partial folder ${t.id}`} from the trash: ${formatBytes(t.bytes)}`);
    for (const s of result.skipped) logger.info(`gc: left session ${s.id}: ${s.why}`);
    this.plan = planGc(this.store);
    this.changed.fire(PROPOSAL_URI);
    this.changed.fire(REPORT_URI);
    const skipped = result.skipped.length ? ` Left ${counted(result.skipped.length, 'session')} being written.` : '';
    void vscode.window.showInformationMessage(`Removed ${formatBytes(result.bytes)} of Braid's storage.${skipped}`);
  }
}

/**
 * At a window's start, once: when Braid's storage is over `braid.storage.budgetMB`, a
 * notification says so and offers the report and the review. It removes nothing itself.
 */
export function checkStorageBudget(store: SessionStore, logger: Logger): void {
  const budget = readStorageBudgetMB();
  if (budget <= 0) return;
  try {
    const total = storageReport(store.layout).total.bytes;
    if (total <= bytesOfMB(budget)) return;
    logger.info(`Braid's storage is ${formatBytes(total)}, over its budget of ${budget} MB`);
    void vscode.window
      .showWarningMessage(
        `Braid's storage is ${formatBytes(total)}, over its budget of ${budget} MB (braid.storage.budgetMB). Braid removes nothing by itself.`,
        'Show Storage',
        'Review Removable Storage…',
      )
      .then((pick) => {
        if (pick === 'Show Storage') void vscode.commands.executeCommand(SHOW_STORAGE_COMMAND);
        else if (pick) void vscode.commands.executeCommand(REVIEW_STORAGE_COMMAND);
      });
  } catch (err) {
    logger.warn(`measuring Braid's storage failed: ${errorMessage(err)}`);
  }
}
