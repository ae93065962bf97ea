import fs from 'node:fs';
import path from 'node:path';
import { StoreLayout } from '../../src/core/format/layout';
import { readState, writeSharedSidecar, writeState, type SharedOrigin } from '../../src/core/format/sessionState';
import type { SessionStore } from '../../src/core/store/sessionStore';
import { workspaceKey } from '../../src/core/workspace/workspaceKey';
import { fauxAssistantMessage, fauxRead, fauxToolCall, sessionFixture, type SessionFixture } from './session';

/** The origin a test's pulled session carries unless it says otherwise. */
export const TEST_ORIGIN: SharedOrigin = {
  remote: 'git@example.com:team/sessions.git',
  machine: '01JTESTMACHINE0000000000000',
  machineName: 'ada-laptop',
  author: 'Ada',
  ref: 'refs/braid/sessions',
  commit: 'a'.repeat(40),
  pulledAt: Date.UTC(2026, 0, 2),
};

/**
 * Copies session `id` of `from` into the data folder `toRoot` as `braid pull` brings a session: the
 * folder holds state.json, shared.json and agents/<agent>/wire.jsonl only (no blobs: file contents are not
 * shared), in the store of the workspace `workspace`, with state.json's `shared` set and its
 * folders made this workspace; the logs are the pushing machine's after redaction: a
 * `file_change` names its file relative to the workspace, with no `root`, and the main agent's
 * first line names this workspace. Returns the copy's folder (a store open on `toRoot` reads it
 * again with `index.rereadFolder`).
 */
export function pulledCopy(from: SessionStore, id: string, toRoot: string, workspace: string, origin: SharedOrigin = TEST_ORIGIN): string {
  const source = from.locate(id);
  const layout = new StoreLayout(toRoot);
  const key = workspaceKey(workspace);
  const dir = layout.sessionDir(key, id);
  const agents = path.join(source, 'agents');
  for (const agent of fs.readdirSync(agents)) {
    const log = fs.readFileSync(path.join(agents, agent, 'wire.jsonl'), 'utf8');
    fs.mkdirSync(path.join(dir, 'agents', agent), { recursive: true });
    fs.writeFileSync(path.join(dir, 'agents', agent, 'wire.jsonl'), redactedLog(log, workspace));
  }
  const state = readState(from.layout.stateFile(source));
  writeState(layout.stateFile(dir), {
    ...state,
    workspaceKey: key,
    workspaceDir: workspace,
    workspaceFolders: [workspace],
    queue: [],
    paused: null,
    shared: origin,
  });
  writeSharedSidecar(layout.sharedFile(dir), { shared: origin, workspaceDir: workspace });
  return dir;
}

/** A log's lines as a pull writes them: file changes relative with no root, the main agent in `workspace`. */
function redactedLog(log: string, workspace: string): string {
  return log
    .split('\n')
    .map((line) => {
      if (!line) return line;
      const record = JSON.parse(line) as Record<string, unknown>;
      if (record.t === 'file_change') delete record.root;
      if (record.t === 'agent' && record.workspaceDir) record.workspaceDir = workspace;
      return JSON.stringify(record);
    })
    .join('\n');
}

/**
 * Machine A: a session whose first turn creates src/new.ts ("created there") and whose second
 * rewrites src/a.ts ("one" to "two"), as the session a test pulls. The caller cleans the fixture up.
 */
export async function machineASession(): Promise<{ a: SessionFixture; id: string }> {
  const a = await sessionFixture({ 'src/a.ts': 'one\n' });
  a.faux.setResponses([
    fauxAssistantMessage(fauxToolCall('write_file', { path: 'src/new.ts', content: 'created there\n' }, { id: 'w1' }), { stopReason: 'toolUse' }),
    fauxAssistantMessage('Created.'),
    fauxRead('src/a.ts'),
    fauxAssistantMessage(fauxToolCall('write_file', { path: 'src/a.ts', content: 'two\n' }, { id: 'w2' }), { stopReason: 'toolUse' }),
    fauxAssistantMessage('Edited.'),
  ]);
  const session = await a.open();
  await session.submit('create new.ts');
  await session.waitForIdle();
  await session.submit('edit a.ts');
  await session.waitForIdle();
  await session.close();
  return { a, id: session.id };
}
