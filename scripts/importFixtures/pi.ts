// pi (`pi -p`), talking OpenAI's Chat Completions API to the scripted server.
import fs from 'node:fs';
import path from 'node:path';
import { WORKSPACE_PLACEHOLDER } from '../../test/support/importFixtures';
import { PROMPTS, toolCall } from './conversation';
import { INSTRUCTIONS, runTool, toolEnv } from './recording';
import { copyTree, renameEntry, sanitizeTree } from './sanitize';
import type { RecordContext, ToolRecorder } from './toolRecorder';

/** pi's folder name for the sessions of a working folder: `--<path without its leading slash, separators as '-'>--`. */
export function piSlug(folder: string): string {
  return `--${folder.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`;
}

/** pi's custom provider for the scripted server, with its one model (reasoning, so thinking is kept). */
function modelsJson(serverUrl: string): object {
  const model = {
    id: 'scripted-model',
    name: 'Scripted model',
    reasoning: true,
    input: ['text'],
    contextWindow: 128000,
    maxTokens: 8192,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  };
  return { providers: { braid: { baseUrl: `${serverUrl}/v1`, api: 'openai-completions', apiKey: 'BRAID_MODEL_KEY', models: [model] } } };
}

export const pi: ToolRecorder = {
  name: 'pi',
  pkg: '@mariozechner/pi-coding-agent',
  bin: 'pi',
  idPrefix: 'call_fixture_',
  workspaceFiles: { 'AGENTS.md': INSTRUCTIONS },
  vocabulary: () => ({
    list: (id) => toolCall(id, 'ls', { path: '.' }),
    read: (id, file) => toolCall(id, 'read', { path: file }),
    shell: (id, command) => toolCall(id, 'bash', { command }),
    write: (id, file, content) => toolCall(id, 'write', { path: file, content }),
    edit: (id, file, oldText, newText) => toolCall(id, 'edit', { path: file, edits: [{ oldText, newText }] }),
  }),

  async record({ tool, recording, serverUrl }: RecordContext) {
    const agentDir = path.join(recording.home, '.pi', 'agent');
    fs.mkdirSync(agentDir, { recursive: true });
    fs.writeFileSync(path.join(agentDir, 'models.json'), JSON.stringify(modelsJson(serverUrl), null, 2));
    // PI_OFFLINE: no version check and no download of fd or ripgrep (so no find or grep tool).
    const env = toolEnv(recording, { PI_CODING_AGENT_DIR: agentDir, PI_OFFLINE: '1', BRAID_MODEL_KEY: 'scripted' });
    const common = ['--provider', 'braid', '--model', 'scripted-model', '--thinking', 'low', '--tools', 'read,bash,edit,write,ls'];
    await runTool(recording, tool.bin, ['-p', ...common, PROMPTS.first], { env });
    await runTool(recording, tool.bin, ['-p', '--continue', ...common, PROMPTS.second], { env });
  },

  collect({ recording }: RecordContext, out, SQL) {
    const sessions = path.join(out, 'sessions');
    copyTree(path.join(recording.home, '.pi', 'agent', 'sessions'), sessions);
    renameEntry(sessions, piSlug(recording.workspace), piSlug(WORKSPACE_PLACEHOLDER));
    sanitizeTree(out, recording, SQL);
  },
};
