import fs from 'node:fs';
import { Type } from '@mariozechner/pi-ai';
import type { AgentTool } from '@mariozechner/pi-agent-core';
import { counted } from '../counted';
import { contextDiff } from '../format/lineDiff';
import { sha256Hex } from '../hash';
import { commandRisk } from './commandRisk';
import { readWhole, replaceFile } from './confinedFile';
import { LIMITS, textResult, type ToolContext } from './context';
import { requireSeen, type SeenFile } from './seenFiles';
import { ToolError } from './workspaceFs';

function requireTrust(ctx: ToolContext, what: string): void {
  if (!ctx.trusted) throw new ToolError(`This workspace is not trusted, so Braid cannot ${what}. Trust the workspace to allow it.`);
}

/** The file's current bytes (null when absent), read the confined way, for its before-image. */
function currentImage(ctx: ToolContext, file: string, asGiven: string): Buffer | null {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (!stat) return null;
  if (stat.isDirectory()) throw new ToolError(`${asGiven} is a folder`);
  return readWhole(ctx.workspace, file, asGiven, LIMITS.editFileBytes, 'too large for Braid to keep a copy to rewind to; change it with a command instead')
    .data;
}

/**
 * An existing file changes only when the session has seen its current bytes (read before write).
 * A turn whose mode changes nothing says so first: reading would not help.
 */
function requireSeenNow(ctx: ToolContext, shown: string, before: Buffer | null, summary: string): void {
  if (!before || !ctx.seenFiles) return;
  ctx.approvals.refuseByMode(summary);
  requireSeen(ctx.seenFiles(), shown, before);
}

/** What the result tells of the file written: the version the session has seen now. */
const seenAfter = (shown: string, content: string): SeenFile => ({ path: shown, sha256: sha256Hex(content) });

/** What the user is asked to allow: a write of `after` over `before` (null: the file is new). */
interface WriteAsked {
  readonly tool: 'write_file' | 'edit_file';
  readonly file: string;
  readonly summary: string;
  readonly before: Buffer | null;
  readonly after: string;
  readonly args: unknown;
}

/**
 * Asks for a write, as a command when the file can make programs run later (a git hook, a VS Code
 * task). Returns the diff the card showed: the whole file's change with a few lines of context
 * around each part, as a diff editor shows it (the tool card shows it too once the call is done).
 */
async function approveWrite(ctx: ToolContext, asked: WriteAsked, signal?: AbortSignal): Promise<string> {
  const risk = commandRisk(ctx.workspace.place(asked.file).relative);
  const { diff, added, removed } = contextDiff(asked.before?.toString('utf8') ?? '', asked.after);
  const change = { path: ctx.workspace.display(asked.file), created: asked.before === null, added, removed };
  await ctx.approvals.check(
    { tool: asked.tool, summary: asked.summary, detail: diff, change, args: JSON.stringify(asked.args, null, 2), ...(risk ? { commandRisk: risk } : {}) },
    signal,
  );
  return diff;
}

/** Writes through the checkpoints: before-image kept, file replaced, file_change appended. */
async function writeWithCheckpoint(ctx: ToolContext, file: string, before: Buffer | null, content: string, toolCallId: string, asGiven: string): Promise<void> {
  ctx.checkpoints.captureBefore(file, before);
  const { createdDirs } = replaceFile(ctx.workspace, file, content, asGiven);
  await ctx.checkpoints.recordWrite(file, ctx.workspace.place(file), toolCallId, Buffer.from(content), createdDirs);
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
      const before = currentImage(ctx, file, params.path);
      const shown = ctx.workspace.display(file);
      const summary = `${before ? 'Replace' : 'Create'} ${shown}`;
      requireSeenNow(ctx, shown, before, summary);
      const diff = await approveWrite(ctx, { tool: 'write_file', file, summary, before, after: params.content, args: raw }, signal);
      await writeWithCheckpoint(ctx, file, before, params.content, id, params.path);
      // Counted as read_file numbers them: a final newline ends the last line, it starts none.
      const lines = params.content === '' ? 0 : params.content.split('\n').length - (params.content.endsWith('\n') ? 1 : 0);
      return textResult(`${before ? 'Replaced' : 'Created'} ${shown} (${counted(lines, 'line')}).`, {
        path: shown,
        created: !before,
        diff,
        seen: seenAfter(shown, params.content),
      });
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
      const before = currentImage(ctx, file, params.path);
      if (!before) throw new ToolError(`${params.path} does not exist; use write_file to create it`);
      const shown = ctx.workspace.display(file);
      requireSeenNow(ctx, shown, before, `Edit ${shown}`);
      const text = before.toString('utf8');
      if (params.old_text === '') throw new ToolError('old_text is empty; give the exact text to replace');
      const count = text.split(params.old_text).length - 1;
      if (count === 0) throw new ToolError(`old_text was not found in ${params.path}; read the file and copy the text exactly`);
      if (count > 1 && !params.replace_all)
        throw new ToolError(`old_text appears ${count} times in ${params.path}; include more surrounding text to make it unique, or set replace_all`);
      const next = params.replace_all ? text.split(params.old_text).join(params.new_text) : text.replace(params.old_text, () => params.new_text);
      const diff = await approveWrite(ctx, { tool: 'edit_file', file, summary: `Edit ${shown}`, before, after: next, args: raw }, signal);
      await writeWithCheckpoint(ctx, file, before, next, id, params.path);
      return textResult(`Edited ${shown} (${params.replace_all ? count : 1} replacement${count > 1 && params.replace_all ? 's' : ''}).`, {
        path: shown,
        replacements: params.replace_all ? count : 1,
        diff,
        seen: seenAfter(shown, next),
      });
    },
  };
}
