import { silentLogger } from '../../src/core/logger';
import { resolveModel } from '../../src/core/model/modelSettings';
import { Session } from '../../src/core/session/session';
import { SessionStore } from '../../src/core/store/sessionStore';
import { workspaceKey } from '../../src/core/workspace/workspaceKey';

/**
 * Opens the store as the extension does (the workspace's index loaded, its default index save
 * delay, following other processes' saves), only without the whole-index check it schedules after
 * activation (not a turn's cost).
 */
export function openBenchStore(root: string, wasmPath: string, workspace: string): Promise<SessionStore> {
  return SessionStore.open({ root, wasmPath, logger: silentLogger, workspaceKey: workspaceKey(workspace), watch: true, verifyAfterMs: 60 * 60 * 1000 });
}

/**
 * A new core Session in `workspace`, talking to the OpenAI-compatible server at `baseUrl` as
 * Braid talks to Ollama or vLLM. The one place that knows Session.open's options: when the
 * core's API changes, this is what changes. No git context (it runs git, not state I/O), and no
 * approvals asked (the tool variant only reads).
 */
export function openBenchSession(store: SessionStore, workspace: string, baseUrl: string): Promise<Session> {
  const model = resolveModel({ provider: 'openai-compatible', model: 'scripted-model', baseUrl, demo: false });
  return Session.open({
    store,
    workspaceDirs: [workspace],
    model: () => ({ model, thinking: 'off' }),
    apiKey: () => 'bench-key',
    systemPrompt: 'You are a benchmark agent.',
    approvals: { request: async () => 'allow' },
    trusted: true,
    logger: silentLogger,
    gitContext: false,
  });
}
