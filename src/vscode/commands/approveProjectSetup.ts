import * as vscode from 'vscode';
import { approvalCandidates, approveCandidate, revokeCandidate, type ApprovalCandidate } from '../../core/setup/projectSetupApproval';
import type { SetupWatcher } from '../setup/setupWatcher';
import type { BraidCommand } from '../braidCommand';
import { APPROVE_PROJECT_SETUP_COMMAND } from '../commandIds';

type CandidateItem = vscode.QuickPickItem & { readonly candidate: ApprovalCandidate };

/**
 * Braid: Approve Project Setup…: the project's MCP servers and settings files (hooks, allow rules)
 * in one pick, each with what it would run; the approved ones checked. Checking one approves it as
 * it is now, unchecking an approved one revokes it: the same approvals `braid mcp trust` and
 * `braid hooks trust` write. Only in a trusted workspace.
 */
export function approveProjectSetupCommand(setup: SetupWatcher): BraidCommand {
  return {
    id: APPROVE_PROJECT_SETUP_COMMAND,
    failure: 'Braid could not save the approvals',
    run: async () => {
      if (!vscode.workspace.isTrusted) {
        const manage = 'Manage Workspace Trust';
        const answer = await vscode.window.showWarningMessage(
          'This workspace is not trusted, so nothing of its setup may run: trust it first, then approve its MCP servers and hooks.',
          manage,
        );
        if (answer === manage) await vscode.commands.executeCommand('workbench.trust.manage');
        return;
      }
      const sources = setup.current();
      const candidates = approvalCandidates(sources);
      if (candidates.length === 0) {
        void vscode.window.showInformationMessage('This project defines no MCP servers, hooks or permission rules that need approval.');
        return;
      }
      const picks = await vscode.window.showQuickPick(candidates.map(itemOf), {
        canPickMany: true,
        matchOnDescription: true,
        matchOnDetail: true,
        title: 'Approve Project Setup',
        placeHolder: 'Check what may run in this folder as it is now; uncheck an approved one to revoke it',
      });
      if (!picks) return;
      const chosen = new Set(picks.map((p) => p.candidate.item));
      const approve = candidates.filter((c) => chosen.has(c.item) && !c.approved);
      const revoke = candidates.filter((c) => !chosen.has(c.item) && c.approved);
      // The hashes are those of the definitions the pick showed: a file changed meanwhile still asks.
      for (const c of approve) await approveCandidate(sources, c);
      for (const c of revoke) await revokeCandidate(sources, c);
      if (approve.length + revoke.length === 0) return;
      setup.readAgain('approvals changed');
      const names = (list: ApprovalCandidate[], verb: string) => (list.length ? [`${verb} ${list.map((c) => c.name).join(', ')}`] : []);
      void vscode.window.showInformationMessage(
        `${[...names(approve, 'Approved'), ...names(revoke, 'Revoked')].join('; ')}. A change to a definition asks again.`,
      );
    },
  };
}

function itemOf(candidate: ApprovalCandidate): CandidateItem {
  const what = candidate.kind === 'mcp' ? `MCP server in ${vscode.workspace.asRelativePath(candidate.file)}` : 'hooks and allow rules';
  return {
    label: `${candidate.kind === 'mcp' ? '$(server)' : '$(file)'} ${candidate.name}`,
    description: `${what}: ${candidate.approved ? 'approved' : 'waiting for approval'}`,
    detail: candidate.details.join('  ·  ') || 'no hooks or allow rules',
    picked: candidate.approved,
    candidate,
  };
}
