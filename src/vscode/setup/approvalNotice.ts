import * as vscode from 'vscode';
import { errorMessage } from '../../core/errors';
import type { Logger } from '../../core/logger';
import { pendingApprovals } from '../../core/setup/projectSetupApproval';
import { APPROVE_PROJECT_SETUP_COMMAND } from '../commandIds';
import { Disposable } from '../disposable';
import type { SetupWatcher } from './setupWatcher';

/**
 * Once per window: when a trusted workspace's project defines MCP servers or hooks waiting for
 * the user's approval, one notification says how many, with "Review…" opening Braid: Approve
 * Project Setup…. Looked at when the window starts and when the setup is read again (trust
 * granted, a file added), until it was shown.
 */
export class ApprovalNotice extends Disposable {
  private shown = false;

  constructor(
    private readonly setup: SetupWatcher,
    private readonly logger: Logger,
  ) {
    super();
    this._register(setup.onDidChange(() => this.check()));
    this.check();
  }

  private check(): void {
    if (this.shown || !vscode.workspace.isTrusted || !this.setup.workspaceDir) return;
    let pending;
    try {
      pending = pendingApprovals(this.setup.current());
    } catch (err) {
      this.logger.warn(`the project's setup could not be read for approval: ${errorMessage(err)}`);
      return;
    }
    if (pending.length === 0) return;
    this.shown = true;
    const servers = pending.filter((c) => c.kind === 'mcp').length;
    const files = pending.length - servers;
    const parts = [
      ...(servers ? [`${servers} MCP server${servers === 1 ? '' : 's'}`] : []),
      ...(files ? [`hooks or allow rules in ${files} settings file${files === 1 ? '' : 's'}`] : []),
    ];
    const review = 'Review…';
    void vscode.window
      .showInformationMessage(`This project defines ${parts.join(' and ')} that need your approval before they run.`, review)
      .then((answer) => (answer === review ? vscode.commands.executeCommand(APPROVE_PROJECT_SETUP_COMMAND) : undefined));
  }
}
