import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { silentLogger } from '../../src/core/logger';
import { Session } from '../../src/core/session/session';
import type { TurnMode } from '../../src/protocol/modes';
import { commonPrefixLength, promptOf, ScriptedModelServer, type ScriptedReply } from '../../test/support/modelServer';
import { initRepo } from '../../test/support/gitRepo';
import { openBenchStore } from '../turnIo/benchSession';

/** The modes of the session's turns, as a user switches them: mostly Agent, with questions and plans between. */
const MODES: readonly TurnMode[] = ['agent', 'ask', 'agent', 'plan', 'agent', 'agent', 'ask', 'auto-edit', 'agent', 'plan'];

/** What changed between consecutive model calls of one session, as the provider saw the prompts. */
export interface PrefixFigures {
  readonly turns: number;
  readonly calls: number;
  /** Bytes of all prompts sent. */
  readonly promptBytes: number;
  /** Bytes of a call's prompt that the next call did not begin with (what a prompt cache loses). */
  readonly changedPrefixBytes: number;
  /** Calls whose prompt did not begin with the whole previous prompt. */
  readonly prefixBreaks: number;
  /** Bytes of each prompt after what it shared with the previous one (what the provider reads anew). */
  readonly freshBytes: number;
  /** Prompt tokens the played prompt cache read, of all prompt tokens. */
  readonly cachedShare: number;
}

/**
 * A real Session in a git repository with an AGENTS.md, against the scripted server playing
 * OpenAI's prompt cache: `turns` turns in the modes above, each one tool call (a read, or in the
 * modes that write, a file written) and an answer. Git context is on, as in a trusted workspace.
 */
export async function measurePrefix(wasmPath: string, turns: number): Promise<PrefixFigures> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-bench-prefix-'));
  const workspace = path.join(root, 'repo');
  initRepo(workspace, {
    'AGENTS.md': 'Run npm test before you say a change is done.\nKeep functions short.\n',
    'README.md': '# Sorter\n\nSorts numbers.\n'.repeat(40),
    'src/sort.ts': 'export function sort(xs: number[]): number[] {\n  return [...xs].sort((a, b) => a - b);\n}\n'.repeat(20),
  });
  const server = new ScriptedModelServer();
  server.cachePrompts();
  const baseUrl = await server.start();
  const store = await openBenchStore(path.join(root, 'data'), wasmPath, workspace);
  const session = await Session.open({
    store,
    workspaceDirs: [workspace],
    model: () => server.modelChoice(),
    apiKey: () => 'bench-key',
    systemPrompt: `You are a benchmark agent. The workspace folder is ${workspace}.`,
    approvals: { request: async () => 'allow' },
    trusted: true,
    logger: silentLogger,
  });
  try {
    void baseUrl;
    for (let turn = 1; turn <= turns; turn++) {
      const mode = MODES[(turn - 1) % MODES.length]!;
      server.enqueue(toolCall(turn, mode), {
        kind: 'text',
        chunks: [`Turn ${turn} is done: `, 'the change is in place.'],
        usage: { prompt: 0, completion: 12 },
      });
      await session.submit(`Step ${turn}: look at the sorter and ${mode === 'ask' || mode === 'plan' ? 'tell me about it' : 'add a note'}.`, { mode });
      await session.waitForIdle();
    }
  } finally {
    await session.close();
    await store.close();
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
  return figuresOf(server, turns);
}

function toolCall(turn: number, mode: TurnMode): ScriptedReply {
  const writes = mode === 'agent' || mode === 'auto-edit';
  const call = writes
    ? { id: `call_${turn}`, name: 'write_file', arguments: JSON.stringify({ path: `notes/${turn}.md`, content: `Note ${turn}\n` }) }
    : { id: `call_${turn}`, name: 'read_file', arguments: JSON.stringify({ path: 'src/sort.ts' }) };
  return { kind: 'toolCalls', calls: [call], usage: { prompt: 0, completion: 20 } };
}

/** The figures of the prompts the server received, in order. */
export function figuresOf(server: ScriptedModelServer, turns: number): PrefixFigures {
  const prompts = server.requests.map((r) => promptOf(r.body).text);
  let changed = 0;
  let fresh = prompts[0] ? Buffer.byteLength(prompts[0]) : 0;
  let breaks = 0;
  for (let i = 1; i < prompts.length; i++) {
    const [before, now] = [prompts[i - 1]!, prompts[i]!];
    const shared = commonPrefixLength(before, now);
    if (shared < before.length) breaks++;
    changed += Buffer.byteLength(before.slice(shared));
    fresh += Buffer.byteLength(now.slice(shared));
  }
  const usage = server.replies.map((r) => ('usage' in r ? r.usage : undefined));
  const promptTokens = usage.reduce((n, u) => n + (u?.prompt ?? 0), 0);
  const cached = usage.reduce((n, u) => n + (u?.cached ?? 0), 0);
  return {
    turns,
    calls: prompts.length,
    promptBytes: prompts.reduce((n, p) => n + Buffer.byteLength(p), 0),
    changedPrefixBytes: changed,
    prefixBreaks: breaks,
    freshBytes: fresh,
    cachedShare: promptTokens > 0 ? cached / promptTokens : 0,
  };
}
