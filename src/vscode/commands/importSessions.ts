import os from 'node:os';
import * as vscode from 'vscode';
import { findSources, importFailed, importSessions, type ImportOutcome } from '../../core/import/importer';
import { SourceDatabases } from '../../core/import/sourceDatabase';
import { TOOL_NAMES, type SourceTool } from '../../core/import/source';
import { counted } from '../../core/counted';
import type { BraidCommand } from '../braidCommand';
import type { CommandContext } from './commandContext';

type SourcePick = vscode.QuickPickItem & { readonly from: SourceTool | 'auto'; readonly paths: readonly string[] };

/** Braid: Import Sessions…: a picker of the tools whose sessions were found (with counts), or a folder or file chosen; then the import with a progress notification. */
export function importCommands(ctx: CommandContext): BraidCommand[] {
  return [
    {
      id: 'braid.importSessions',
      failure: 'Braid could not import the sessions',
      run: async () => {
        const store = ctx.requireStore();
        const picked = await pickSources(store.wasmPath);
        if (!picked?.length) return;
        const outcomes: ImportOutcome[] = [];
        await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: 'Importing sessions', cancellable: true },
          async (progress, token) => {
            const abort = new AbortController();
            token.onCancellationRequested(() => abort.abort());
            for (const source of picked) {
              let last = 0;
              const done = await importSessions(store, {
                from: source.from,
                paths: source.paths,
                dryRun: false,
                wasmPath: store.wasmPath,
                signal: abort.signal,
                onProgress: (n, total) => {
                  const pct = total ? (n / total) * 100 : 100;
                  progress.report({ increment: (pct - last) / picked.length, message: `${source.label}: ${n} of ${total}` });
                  last = pct;
                },
              });
              outcomes.push(...done);
            }
          },
        );
        for (const o of outcomes)
          ctx.logger.info(
            `import: ${o.action} ${o.tool} ${o.file}${o.sessionId ? ` -> ${o.sessionId}` : ''}${o.reason ? `: ${o.reason}` : ''}${o.skippedLines ? ` (left out: ${o.skippedLines})` : ''}`,
          );
        await sayOutcome(ctx, outcomes);
      },
    },
  ];
}

async function pickSources(wasmPath: string): Promise<SourcePick[] | undefined> {
  const databases = new SourceDatabases(wasmPath);
  const found = await findSources({ from: 'auto', paths: [] }, databases).finally(() => databases.close());
  const items: SourcePick[] = found.sources.map(({ format, refs }) => ({
    label: TOOL_NAMES[format.tool],
    description: counted(refs.length, 'session'),
    detail: format.defaultRoots(process.env, os.homedir()).join(', '),
    from: format.tool,
    paths: [],
    picked: true,
  }));
  const choose: SourcePick = { label: 'Choose a Folder or File…', description: 'sessions copied from another machine', from: 'auto', paths: [] };
  const picked = await vscode.window.showQuickPick([...items, choose], {
    title: 'Import Sessions',
    placeHolder: items.length ? 'The sessions found on this machine; Braid only reads them' : 'No other agent’s sessions were found in their usual folders',
    canPickMany: true,
  });
  if (!picked?.includes(choose)) return picked;
  const uris = await vscode.window.showOpenDialog({ canSelectFiles: true, canSelectFolders: true, canSelectMany: true, openLabel: 'Import' });
  if (!uris?.length) return picked.filter((p) => p !== choose);
  return [...picked.filter((p) => p !== choose), { ...choose, label: 'Chosen', paths: uris.map((u) => u.fsPath) }];
}

/** One message with the counts; the log has each file's outcome. Opens the one session imported into this workspace when there is one. */
async function sayOutcome(ctx: CommandContext, outcomes: readonly ImportOutcome[]): Promise<void> {
  const count = (action: string) => outcomes.filter((o) => o.action === action).length;
  const here = outcomes.filter((o) => (o.action === 'imported' || o.action === 'appended') && o.workspaceDir === ctx.workspaceDir && o.sessionId);
  const refused = outcomes.filter((o) => o.action === 'refused').map((o) => `${o.file}: ${o.reason}`);
  const text = `Imported ${counted(count('imported'), 'session')} (${count('appended')} grown since and appended, ${count('repaired')} repaired, ${count('unchanged')} unchanged, ${count('skipped')} skipped, ${count('failed')} failed); ${here.length} in this workspace.${refused.length ? ` Not imported: ${refused.slice(0, 3).join('; ')}${refused.length > 3 ? '; …' : ''}` : ''}`;
  const actions = [...(here.length ? ['Open Latest'] : []), 'Show Details'];
  const show = importFailed(outcomes) ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  const choice = await show(text, ...actions);
  if (choice === 'Show Details') vscode.commands.executeCommand('braid.showLog');
  if (choice === 'Open Latest' && here.length) {
    // The latest by the sessions' own times (an import keeps them), not the last one imported.
    const store = ctx.requireStore();
    const updated = (id: string) => store.index.get(id)?.updatedAt ?? 0;
    const latest = here.map((o) => o.sessionId!).reduce((a, b) => (updated(b) > updated(a) ? b : a));
    await ctx.chat.current.openSession(latest);
    await ctx.chat.reveal();
  }
}
