// Claude Code (`claude -p`), talking Anthropic's Messages API to the scripted server.
import path from 'node:path';
import { MARKERS, PROMPTS, toolCall } from './conversation';
import { INSTRUCTIONS, runTool, toolEnv } from './recording';
import { WORKSPACE_PLACEHOLDER } from '../../test/support/importFixtures';
import { copyTree, filesBelow, renameEntry, rewriteJsonLines, sanitizeTree, SYSTEM_PROMPT_REMOVED } from './sanitize';
import type { RecordContext, ToolRecorder } from './toolRecorder';

/** Claude Code's folder name for a project: its path with every character but letters and digits made '-'. */
export function claudeSlug(folder: string): string {
  return folder.replace(/[^a-zA-Z0-9]/g, '-');
}

/** Marks the prompt that is interrupted before its answer. */
const INTERRUPTED_MARKER = '[fixture interrupted]';

/** The custom slash command the second prompt runs (its text ends in the arguments). */
const COMMAND = 'check-todo';

export const claudeCode: ToolRecorder = {
  name: 'claude-code',
  pkg: '@anthropic-ai/claude-code',
  bin: 'claude',
  idPrefix: 'toolu_fixture_',
  workspaceFiles: {
    'CLAUDE.md': INSTRUCTIONS,
    [`.claude/commands/${COMMAND}.md`]: `---\ndescription: Check TODO.md with a helper\n---\n${PROMPTS.second.replace(MARKERS.second, '$ARGUMENTS')}\n`,
  },
  vocabulary: (workspace) => ({
    list: (id) => toolCall(id, 'Bash', { command: 'ls -R', description: 'List the files' }),
    read: (id, file) => toolCall(id, 'Read', { file_path: path.join(workspace, file) }),
    shell: (id, command) => toolCall(id, 'Bash', { command, description: 'Count the lines' }),
    write: (id, file, content) => toolCall(id, 'Write', { file_path: path.join(workspace, file), content }),
    edit: (id, file, oldText, newText) => toolCall(id, 'Edit', { file_path: path.join(workspace, file), old_string: oldText, new_string: newText }),
    subagent: (id, prompt) => toolCall(id, 'Agent', { description: 'Check TODO.md', prompt, subagent_type: 'general-purpose' }),
  }),

  async record(context: RecordContext) {
    const { tool, recording, serverUrl } = context;
    const env = toolEnv(recording, {
      CLAUDE_CONFIG_DIR: path.join(recording.home, '.claude'),
      ANTHROPIC_BASE_URL: serverUrl,
      ANTHROPIC_API_KEY: 'scripted',
      // No telemetry, error reports, update checks or feedback surveys: only the model's requests leave.
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      // Lets root skip the permission prompts (nobody answers them in print mode).
      IS_SANDBOX: '1',
    });
    const common = ['--model', 'scripted-model', '--output-format', 'json', '--dangerously-skip-permissions'];
    const first = JSON.parse(await runTool(recording, tool.bin, ['-p', PROMPTS.first, ...common], { env })) as { session_id: string };
    const resume = ['--resume', first.session_id, ...common];
    await runTool(recording, tool.bin, ['-p', `/${COMMAND} ${MARKERS.second}`, ...resume], { env });
    // A built-in command that runs locally (its output recorded with a caveat), then a compaction.
    await runTool(recording, tool.bin, ['-p', '/context', ...resume], { env });
    await runTool(recording, tool.bin, ['-p', '/compact', ...resume], { env });
    // A prompt interrupted (Ctrl+C) while the model has not answered yet.
    let asked: () => void = () => {};
    const interruptWhen = new Promise<void>((resolve) => (asked = resolve));
    context.intercept = (request) => {
      if (!JSON.stringify(request.body).includes(INTERRUPTED_MARKER)) return undefined;
      setTimeout(asked, 500);
      return { kind: 'stall', chunks: [] };
    };
    await runTool(recording, tool.bin, ['-p', `Wait, one more thing. ${INTERRUPTED_MARKER}`, ...resume], { env, interruptWhen });
    context.intercept = undefined;
  },

  collect({ recording }: RecordContext, out, SQL) {
    const projects = path.join(out, 'projects');
    copyTree(path.join(recording.home, '.claude', 'projects'), projects);
    renameEntry(projects, claudeSlug(recording.workspace), claudeSlug(WORKSPACE_PLACEHOLDER));
    for (const file of filesBelow(projects).filter((f) => f.endsWith('.jsonl'))) rewriteJsonLines(file, stripSystemPrompt);
    // The workspace's slug also names its memory folder in texts.
    sanitizeTree(out, recording, SQL, [[claudeSlug(recording.workspace), claudeSlug(WORKSPACE_PLACEHOLDER)]]);
  },
};

/** Text blocks or tool definitions whose vendor text goes (the fields stay). */
function removeTexts(blocks: unknown, field: 'text' | 'description'): void {
  if (!Array.isArray(blocks)) return;
  for (const block of blocks as Array<Record<string, unknown>>) if (typeof block[field] === 'string') block[field] = SYSTEM_PROMPT_REMOVED;
}

/**
 * Claude Code keeps its system prompt and tool descriptions in `prompt_snapshot` attachments and
 * `api-request-shape` records: each text becomes the marker. Messages (`api-request-blob`) stay.
 */
function stripSystemPrompt(record: Record<string, unknown>): boolean {
  const attachment = record.attachment as Record<string, unknown> | undefined;
  if (record.type === 'attachment' && attachment?.type === 'prompt_snapshot') {
    if (Array.isArray(attachment.systemPrompt)) attachment.systemPrompt = attachment.systemPrompt.map(() => SYSTEM_PROMPT_REMOVED);
    removeTexts(attachment.tools, 'description');
    return true;
  }
  const shape = record.shape as Record<string, unknown> | undefined;
  if (record.type === 'api-request-shape' && shape) {
    removeTexts(shape.system, 'text');
    removeTexts(shape.tools, 'description');
    return true;
  }
  return false;
}
