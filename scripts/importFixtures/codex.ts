// Codex (`codex exec`), talking OpenAI's Responses API to the scripted server.
import fs from 'node:fs';
import path from 'node:path';
import { PROMPTS, toolCall } from './conversation';
import type { ResolvedCall } from './conversation';
import { INSTRUCTIONS, runTool, toolEnv, type Recording } from './recording';
import { copyTree, filesBelow, rewriteJsonLines, sanitizeTree, SYSTEM_PROMPT_REMOVED } from './sanitize';
import type { RecordContext, ToolRecorder } from './toolRecorder';

const patch = (id: string, body: string) => ({ id, name: 'apply_patch', arguments: `*** Begin Patch\n${body}*** End Patch\n`, custom: true });
const lines = (text: string, prefix: string) =>
  text
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => `${prefix}${l}\n`)
    .join('');

/**
 * Codex's own model catalogue entry for the scripted model (`model_catalog_json`): without one
 * Codex falls back to metadata that offers no apply_patch tool. Its base instructions are ours.
 */
const MODEL_CATALOG = {
  models: [
    {
      slug: 'scripted-model',
      display_name: 'Scripted model',
      description: "Braid's scripted model server",
      base_instructions: 'You are a coding agent answering from a script.',
      default_reasoning_level: 'medium',
      supported_reasoning_levels: [{ effort: 'medium', description: 'medium' }],
      shell_type: 'shell_command',
      visibility: 'list',
      supported_in_api: true,
      priority: 1,
      apply_patch_tool_type: 'freeform',
      truncation_policy: { mode: 'tokens', limit: 10000 },
      supports_parallel_tool_calls: true,
      context_window: 128000,
      experimental_supported_tools: [],
      supports_reasoning_summaries: true,
      default_reasoning_summary: 'auto',
      input_modalities: ['text'],
      support_verbosity: true,
    },
  ],
};

function configure(recording: Recording, serverUrl: string): string {
  const codexHome = path.join(recording.home, '.codex');
  fs.mkdirSync(codexHome, { recursive: true });
  const catalog = path.join(codexHome, 'scripted-models.json');
  fs.writeFileSync(catalog, JSON.stringify(MODEL_CATALOG, null, 2));
  const config = [
    'model = "scripted-model"',
    'model_provider = "braid"',
    `model_catalog_json = ${JSON.stringify(catalog)}`,
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    'web_search = "disabled"',
    // No update check, analytics or feedback: only the model's requests leave.
    'check_for_update_on_startup = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[feedback]',
    'enabled = false',
    '',
    '[model_providers.braid]',
    'name = "Braid scripted model"',
    `base_url = ${JSON.stringify(`${serverUrl}/v1`)}`,
    'wire_api = "responses"',
    'env_key = "BRAID_MODEL_KEY"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
  ];
  fs.writeFileSync(path.join(codexHome, 'config.toml'), config.join('\n'));
  return codexHome;
}

/** The id of the agent that the call `spawnId` started, as its output in the request says. */
function spawnedAgent(requestText: string, spawnId: string): string {
  const at = requestText.indexOf(`"call_id":${JSON.stringify(spawnId)}`, requestText.indexOf('function_call_output'));
  const match = /agent_id\\*"\s*:\s*\\*"([^"\\]+)/.exec(requestText.slice(at));
  return match?.[1] ?? 'unknown-agent';
}

export const codex: ToolRecorder = {
  name: 'codex',
  pkg: '@openai/codex',
  bin: 'codex',
  idPrefix: 'call_fixture_',
  workspaceFiles: { 'AGENTS.md': INSTRUCTIONS },
  vocabulary: () => ({
    list: (id) => toolCall(id, 'exec_command', { cmd: 'ls -R' }),
    read: (id, file) => toolCall(id, 'exec_command', { cmd: `cat ${file}` }),
    shell: (id, command) => toolCall(id, 'exec_command', { cmd: command }),
    write: (id, file, content) => patch(id, `*** Add File: ${file}\n${lines(content, '+')}`),
    edit: (id, file, oldText, newText) => patch(id, `*** Update File: ${file}\n@@\n${lines(oldText, '-')}${lines(newText, '+')}`),
    subagent: (id, prompt) => toolCall(id, 'spawn_agent', { message: prompt }, 'multi_agent_v1'),
    awaitSubagent: (id, spawnId): ResolvedCall => ({
      ...toolCall(id, 'wait_agent', { targets: [] }, 'multi_agent_v1'),
      resolve: (text) => JSON.stringify({ targets: [spawnedAgent(text, spawnId)], timeout_ms: 30000 }),
    }),
  }),

  async record({ tool, recording, serverUrl }: RecordContext) {
    const codexHome = configure(recording, serverUrl);
    const env = toolEnv(recording, { CODEX_HOME: codexHome, BRAID_MODEL_KEY: 'scripted' });
    const exec = ['exec', '--json', '--skip-git-repo-check'];
    const events = await runTool(recording, tool.bin, [...exec, PROMPTS.first], { env });
    const started = events.split('\n').find((l) => l.includes('"thread.started"'));
    const thread = started ? (JSON.parse(started) as { thread_id: string }).thread_id : undefined;
    if (!thread) throw new Error(`codex exec printed no thread.started event (see ${recording.log})`);
    await runTool(recording, tool.bin, [...exec, 'resume', thread, PROMPTS.second], { env });
  },

  collect({ recording }: RecordContext, out, SQL) {
    const codexHome = path.join(recording.home, '.codex');
    copyTree(path.join(codexHome, 'sessions'), path.join(out, 'sessions'));
    for (const file of filesBelow(out)) rewriteJsonLines(file, stripBaseInstructions);
    sanitizeTree(out, recording, SQL);
  },
};

/** A rollout's `session_meta` carries the model's base instructions: the text becomes the marker. */
function stripBaseInstructions(record: Record<string, unknown>): boolean {
  const payload = record.payload as Record<string, unknown> | undefined;
  if (record.type !== 'session_meta' || !payload?.base_instructions) return false;
  const instructions = payload.base_instructions as Record<string, unknown> | string;
  payload.base_instructions = typeof instructions === 'string' ? SYSTEM_PROMPT_REMOVED : { ...instructions, text: SYSTEM_PROMPT_REMOVED };
  return true;
}
