import path from 'node:path';
import picomatch from 'picomatch';
import type { AgentTool } from '@mariozechner/pi-agent-core';
import type { Message } from '@mariozechner/pi-ai';
import { errorMessage } from '../../errors';
import { reminderBlock, reminderText } from '../../format/reminder';
import { listField, readFrontMatter } from './frontMatter';
import { folderEntries, folderPresent, readSetupText, type SetupFolder, type SetupProblem } from './setupFolder';

// VS Code's `.github/instructions/*.instructions.md`: instructions for some files only, named by
// the `applyTo` globs of their front matter. They are text, like AGENTS.md, and read under the
// same rule (in an untrusted workspace too); one reaches the model when a file it applies to is
// read, edited or written, once, and again only when it changed or was compacted away.

/** The folder of scoped instruction files, relative to the workspace. */
export const SCOPED_INSTRUCTIONS_DIR = '.github/instructions';
/** An instruction file larger than this is not read; at most this much of its text is given. */
const MAX_INSTRUCTION_BYTES = 256 * 1024;
const MAX_INSTRUCTION_CHARS = 20_000;
/** The tools whose `path` argument names a file an instruction may apply to. */
const FILE_TOOLS = new Set(['read_file', 'edit_file', 'write_file']);

/** One instruction file of `.github/instructions`. */
export interface ScopedInstruction {
  /** Relative to the workspace (`.github/instructions/ts.instructions.md`). */
  readonly file: string;
  readonly applyTo: readonly string[];
  readonly text: string;
}

/** The workspace's scoped instruction files, sorted by name (files without `applyTo` apply to nothing). */
export function discoverScopedInstructions(workspaceDir: string): { items: ScopedInstruction[]; problems: SetupProblem[] } {
  const folder: SetupFolder = { dir: path.join(workspaceDir, SCOPED_INSTRUCTIONS_DIR), origin: 'project', label: SCOPED_INSTRUCTIONS_DIR, root: workspaceDir };
  const items: ScopedInstruction[] = [];
  const problems: SetupProblem[] = [];
  if (!folderPresent(folder)) return { items, problems };
  for (const name of folderEntries(folder.dir, folder).files.filter((f) => f.endsWith('.instructions.md'))) {
    const file = `${SCOPED_INSTRUCTIONS_DIR}/${name}`;
    try {
      const { fields, body } = readFrontMatter(readSetupText(path.join(folder.dir, name), folder, MAX_INSTRUCTION_BYTES));
      const text = body.trim().slice(0, MAX_INSTRUCTION_CHARS);
      if (text) items.push({ file, applyTo: listField(fields, 'applyto'), text });
    } catch (err) {
      problems.push({ file, reason: errorMessage(err) });
    }
  }
  return { items, problems };
}

/** The reminder an instruction is given as; its first line is its kind (one per file). */
export function scopedReminder(instruction: ScopedInstruction): string {
  return `Instructions from ${instruction.file} in the workspace (for files matching ${instruction.applyTo.join(', ')}):\n${instruction.text}`;
}

/** Whether an instruction applies to a file (relative to the workspace, `/`-separated). */
export function appliesTo(instruction: ScopedInstruction, relativeFile: string): boolean {
  return instruction.applyTo.some((glob) => picomatch(glob, { dot: true })(relativeFile));
}

/**
 * Gives the scoped instructions for the files read_file, edit_file and write_file touch: after a
 * successful call, the ones that apply to its file and that the model does not have are appended
 * to the result as reminder blocks. `context` is the conversation the model has (its reminders say
 * what it was given); what this turn gave already is remembered too, so two calls in one answer
 * give it once. {@link turnStarted} forgets that (the turn's results are in the context by then).
 */
export class ScopedInstructionGate {
  private readonly given = new Map<string, string>();

  constructor(
    private readonly workspaceDir: string,
    private readonly context: () => readonly Message[],
  ) {}

  /** Call at each turn's start. */
  turnStarted(): void {
    this.given.clear();
  }

  /** The tools, the three file tools wrapped. */
  wrap(tools: readonly AgentTool[]): AgentTool[] {
    return tools.map((tool) => {
      if (!FILE_TOOLS.has(tool.name)) return tool;
      const execute: AgentTool['execute'] = async (id, params, signal, onUpdate) => {
        const result = await tool.execute(id, params, signal, onUpdate);
        const file = (params as { path?: unknown }).path;
        const due = typeof file === 'string' ? this.due(file) : [];
        if (due.length === 0) return result;
        return { ...result, content: [...result.content, ...due.map((r) => ({ type: 'text' as const, text: reminderBlock(r) }))] };
      };
      return { ...tool, execute };
    });
  }

  /** The reminders for a file the model does not have yet (noted as given). */
  private due(file: string): string[] {
    const relative = path.relative(this.workspaceDir, path.resolve(this.workspaceDir, file)).split(path.sep).join('/');
    if (relative.startsWith('../') || path.isAbsolute(relative)) return [];
    const told = toldReminders(this.context());
    const due = discoverScopedInstructions(this.workspaceDir)
      .items.filter((i) => appliesTo(i, relative))
      .map(scopedReminder)
      .filter((r) => told.get(kindOf(r)) !== r && this.given.get(kindOf(r)) !== r);
    for (const r of due) this.given.set(kindOf(r), r);
    return due;
  }
}

const kindOf = (reminder: string) => reminder.split('\n', 1)[0]!;

/** The latest reminder of each kind in the user messages and tool results of a conversation. */
function toldReminders(messages: readonly Message[]): Map<string, string> {
  const latest = new Map<string, string>();
  for (const m of messages) {
    if ((m.role !== 'user' && m.role !== 'toolResult') || typeof m.content === 'string') continue;
    for (const b of m.content) {
      const text = b.type === 'text' ? reminderText(b.text) : undefined;
      if (text !== undefined) latest.set(kindOf(text), text);
    }
  }
  return latest;
}
