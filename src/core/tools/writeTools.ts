import fs from 'node:fs';
import path from 'node:path';
import { Type } from '@mariozechner/pi-ai';
import type { AgentTool } from '@mariozechner/pi-agent-core';
import { textResult, type ToolContext } from './context';
import { ToolError } from './workspaceFs';

function requireTrust(ctx: ToolContext, what: string): void {
  if (!ctx.trusted) throw new ToolError(`This workspace is not trusted, so Braid cannot ${what}. Trust the workspace to allow it.`);
}

/** Writes through the checkpoints: before-image kept, file written, file_change appended. */
async function writeWithCheckpoint(ctx: ToolContext, file: string, content: string, toolCallId: string): Promise<void> {
  ctx.checkpoints.captureBefore(file);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  await ctx.checkpoints.recordAfter(file, ctx.workspace.display(file), toolCallId);
}

/** `write_file`: creates or replaces a file (folders created); asks for approval unless allowed. */
export function writeFileTool(ctx: ToolContext): AgentTool {
  return {
    name: 'write_file',
    label: 'Write file',
    description: 'Create or replace a file of the workspace with the given content. Creates missing folders.',
    parameters: Type.Object({
      path: Type.String({ description: 'File path, relative to the workspace folder' }),
      content: Type.String({ description: 'The whole new content' }),
    }),
    executionMode: 'sequential',
    async execute(id, raw: unknown, signal) {
      const params = raw as { path: string; content: string };
      requireTrust(ctx, 'write files');
      const file = ctx.workspace.resolve(params.path);
      if (fs.existsSync(file) && fs.statSync(file).isDirectory()) throw new ToolError(`${params.path} is a folder`);
      const existed = fs.existsSync(file);
      await ctx.approvals.check({ tool: 'write_file', summary: `${existed ? 'Replace' : 'Create'} ${ctx.workspace.display(file)}`, detail: params.content.slice(0, 4000) }, signal);
      await writeWithCheckpoint(ctx, file, params.content, id);
      const lines = params.content.split('\n').length;
      return textResult(`${existed ? 'Replaced' : 'Created'} ${ctx.workspace.display(file)} (${lines} lines).`, { path: ctx.workspace.display(file), created: !existed });
    },
  };
}

/** `edit_file`: exact text replacement; an error when the text is absent or, without replace_all, not unique. */
export function editFileTool(ctx: ToolContext): AgentTool {
  return {
    name: 'edit_file',
    label: 'Edit file',
    description: 'Replace old_text with new_text in a file. old_text must match exactly (whitespace included) and be unique unless replace_all is true.',
    parameters: Type.Object({
      path: Type.String({ description: 'File path, relative to the workspace folder' }),
      old_text: Type.String({ description: 'The exact text to replace' }),
      new_text: Type.String({ description: 'The replacement' }),
      replace_all: Type.Optional(Type.Boolean({ description: 'Replace every occurrence' })),
    }),
    executionMode: 'sequential',
    async execute(id, raw: unknown, signal) {
      const params = raw as { path: string; old_text: string; new_text: string; replace_all?: boolean };
      requireTrust(ctx, 'edit files');
      const file = ctx.workspace.resolve(params.path);
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch {
        throw new ToolError(`${params.path} does not exist; use write_file to create it`);
      }
      if (params.old_text === '') throw new ToolError('old_text is empty; give the exact text to replace');
      const count = text.split(params.old_text).length - 1;
      if (count === 0) throw new ToolError(`old_text was not found in ${params.path}; read the file and copy the text exactly`);
      if (count > 1 && !params.replace_all) throw new ToolError(`old_text appears ${count} times in ${params.path}; include more surrounding text to make it unique, or set replace_all`);
      const next = params.replace_all ? text.split(params.old_text).join(params.new_text) : text.replace(params.old_text, () => params.new_text);
      await ctx.approvals.check({ tool: 'edit_file', summary: `Edit ${ctx.workspace.display(file)}`, detail: `- ${params.old_text.slice(0, 2000)}\n+ ${params.new_text.slice(0, 2000)}` }, signal);
      await writeWithCheckpoint(ctx, file, next, id);
      return textResult(`Edited ${ctx.workspace.display(file)} (${params.replace_all ? count : 1} replacement${count > 1 && params.replace_all ? 's' : ''}).`, { path: ctx.workspace.display(file), replacements: params.replace_all ? count : 1 });
    },
  };
}
