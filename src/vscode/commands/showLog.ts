import type * as vscode from 'vscode';
import type { BraidCommand } from '../braidCommand';

/** Braid: Show Log — reveals the Braid output channel. */
export function showLogCommand(channel: vscode.LogOutputChannel): BraidCommand {
  return { id: 'braid.showLog', run: () => channel.show(true) };
}
