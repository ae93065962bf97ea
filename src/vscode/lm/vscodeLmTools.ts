import type { AgentTool } from '@mariozechner/pi-agent-core';
import * as vscode from 'vscode';
import type { ToolContext } from '../../core/tools/context';
import { chosenToolNames, lmAgentTools } from './lmToolAdapter';

/** The user's own `braid.vscodeTools`: the VS Code tools Braid's model is offered (none by default). */
export const VSCODE_TOOLS_SETTING = 'vscodeTools';

/** The names in the user's own `braid.vscodeTools`. */
export function readChosenVscodeTools(): string[] {
  return chosenToolNames(vscode.workspace.getConfiguration('braid').inspect<unknown>(VSCODE_TOOLS_SETTING)?.globalValue);
}

/** The VS Code tools the user chose, as tools of a session (its approval gate, its trust). */
export function vscodeLmTools(ctx: ToolContext): AgentTool[] {
  const chosen = readChosenVscodeTools();
  if (chosen.length === 0) return [];
  return lmAgentTools(vscode.lm.tools, chosen, invokeVscodeTool, ctx);
}

/** Calls a VS Code tool with the session's cancellation: Stop cancels the call. */
async function invokeVscodeTool(name: string, input: object, signal?: AbortSignal): Promise<string[]> {
  const cancel = new vscode.CancellationTokenSource();
  const onAbort = () => cancel.cancel();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, cancel.token);
    return result.content.map(partText);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    cancel.dispose();
  }
}

/** A result part as text: text parts as they are, text data decoded, anything else named. */
function partText(part: unknown): string {
  if (part instanceof vscode.LanguageModelTextPart) return part.value;
  if (part instanceof vscode.LanguageModelDataPart) {
    if (/^text\/|json/.test(part.mimeType)) return new TextDecoder().decode(part.data);
    return `[${part.mimeType} data, ${part.data.byteLength} bytes, left out]`;
  }
  return '[a result part that is not text, left out]';
}
