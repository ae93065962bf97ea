import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { shownTitle } from '../../../src/core/format/titles';
import { DEFAULT_COMPACTION } from '../../../src/core/session/compaction';
import { readSetupSources } from '../../../src/core/setup/sources';
import type { SessionInfo, StreamFrame } from '../../../src/protocol/frames';
import type { HostToWebview } from '../../../src/protocol/messages';
import type { ChatHost } from '../../../src/vscode/chat/chatHost';
import { CurrentSession } from '../../../src/vscode/chat/currentSession';
import type { SessionStatus } from '../../../src/vscode/chat/sessionInfo';
import { ScriptedModelServer } from '../../support/modelServer';
import { openStore, recordingLogger, tempRoots } from '../../support/store';
import { until } from '../../support/until';

// The Chat shows the open session's facts from memory: a turn with the Chat attached takes the
// index's lock as a turn without it does (its row written once), not once or twice per frame, and
// what the page and the status bar show after the turn is what the index row says.
const roots = tempRoots();
after(roots.cleanup);

/** The window without VS Code: one folder, the scripted server's model, the frames posted. */
function hostFor(server: ScriptedModelServer, workspace: string): ChatHost & { posted: HostToWebview[] } {
  const posted: HostToWebview[] = [];
  let shown: string | undefined;
  return {
    posted,
    workspaceDirs: () => [workspace],
    isTrusted: () => true,
    chooseModel: async () => server.modelChoice(),
    apiKey: async () => 'test-key',
    sessionSettings: () => ({ approvalPolicy: { writes: 'ask', shell: 'ask' }, compaction: DEFAULT_COMPACTION }),
    setupSources: () => readSetupSources({ workspaceDir: workspace, trusted: true, env: { XDG_CONFIG_HOME: path.join(workspace, '.no-user-config') } }),
    shown: { get: () => shown, set: (id) => void (shown = id) },
    post: (message) => void posted.push(message),
    resync: () => undefined,
    reveal: () => undefined,
  };
}

/** Counts index.lock taken by this process: FileLock creates the lock file exclusively (`wx`). */
function countIndexLocks(): { readonly count: number; stop(): void } {
  const original = fs.writeFileSync;
  const counter = { count: 0, stop: () => void (fs.writeFileSync = original) };
  fs.writeFileSync = function (this: unknown, ...args: Parameters<typeof fs.writeFileSync>) {
    original.apply(this, args);
    const [file, , options] = args;
    if (String(file).endsWith('index.lock') && typeof options === 'object' && options?.flag === 'wx') counter.count++;
  } as typeof fs.writeFileSync;
  return counter;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a turn with the Chat attached takes index.lock at most twice, and the Chat shows what the index row says', async () => {
  const root = roots.root();
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workspace, 'notes.txt'), 'line one\nline two\n');
  const server = new ScriptedModelServer();
  await server.start();
  // As the extension opens it: the index's default save delay, following other processes' saves.
  const store = await openStore(path.join(root, 'store'), { saveDelayMs: 100, watch: true });
  const host = hostFor(server, workspace);
  const logger = recordingLogger();
  const chat = new CurrentSession(store, host, logger);
  // The status bar reads the chat's status on each change, as extension.ts does.
  const statuses: Array<SessionStatus | undefined> = [];
  chat.onDidChange(() => statuses.push(chat.status()));
  const frames = () => host.posted.flatMap((m) => (m.type === 'frames' ? m.frames : []));
  const ended = (requestId: string) => frames().some((f) => f.kind === 'turn-terminal' && f.requestId === requestId);
  try {
    // The first turn creates the session and names it.
    server.enqueue({ kind: 'text', chunks: ['Hello ', 'there.'], usage: { prompt: 100, completion: 10 } });
    await chat.prompt('req-1', 'Say hello and read my notes', false);
    await until(() => ended('req-1'), 'the first turn ends');
    const id = chat.currentId!;
    await sleep(250);
    await store.index.flush();

    // The turn counted: a tool call, its result and a streamed answer.
    server.enqueue(
      {
        kind: 'toolCalls',
        calls: [{ id: 'read-1', name: 'read_file', arguments: JSON.stringify({ path: 'notes.txt' }) }],
        usage: { prompt: 130, completion: 8, cached: 100 },
      },
      { kind: 'text', chunks: ['The notes ', 'have ', 'two lines.'], usage: { prompt: 160, completion: 6, cached: 120 } },
    );
    const framesBefore = frames().length;
    const locks = countIndexLocks();
    try {
      await chat.prompt('req-2', 'How many lines?', false);
      await until(() => ended('req-2'), 'the second turn ends');
      await sleep(250); // the index's delayed write of the turn's row
      await store.index.flush();
    } finally {
      locks.stop();
    }
    const turnFrames = frames().slice(framesBefore);
    assert.ok(turnFrames.length >= 8, `the turn streamed frames to the page (${turnFrames.length})`);
    assert.ok(locks.count <= 2, `index.lock taken ${locks.count} times in one turn with the Chat attached`);
    assert.ok(locks.count >= 1, 'the turn wrote its row into the index');

    // What the Chat shows after the turn is what the index row says.
    const row = store.index.get(id)!;
    assert.equal(row.status, 'idle');
    assert.equal(row.turnCount, 2);
    const last = (kind: StreamFrame['kind']) => turnFrames.filter((f) => f.kind === kind).at(-1);
    const updated = last('session-updated');
    const info: SessionInfo = updated?.kind === 'session-updated' ? updated.info : assert.fail('no session-updated frame');
    assert.equal(info.title, shownTitle(row));
    assert.ok(info.title.startsWith('Say hello'), info.title);
    assert.deepEqual(info.usage, { input: row.usage.input, output: row.usage.output, cacheRead: row.usage.cacheRead, costTotal: row.usage.cost });
    const own = store.index.sessionUsage(id).own;
    assert.deepEqual(info.usage, { input: own.input, output: own.output, cacheRead: own.cacheRead, costTotal: own.cost });
    assert.ok(info.usage.output === 10 + 8 + 6 && info.usage.cacheRead > 0, JSON.stringify(info.usage));
    assert.equal(info.history, undefined, 'nothing inherited');
    assert.deepEqual([info.queue, info.paused], [[], false]);
    // The turn's usage on its terminal frame: the row's now less what the first turn left.
    const terminal = last('turn-terminal');
    assert.ok(terminal?.kind === 'turn-terminal' && terminal.outcome === 'completed' && terminal.usage?.output === 8 + 6, JSON.stringify(terminal));
    const tokens = row.usage.input + row.usage.output + row.usage.cacheRead + row.usage.cacheWrite;
    assert.deepEqual(statuses.at(-1), { title: shownTitle(row), tokens });
    assert.deepEqual(chat.status(), { title: shownTitle(row), tokens });

    // A rename of the open session (the Sessions tree's Rename) reaches the memory the Chat reads.
    await store.rename(id, 'Counting lines');
    assert.equal(chat.view().session?.info.title, 'Counting lines');
    assert.equal(chat.status()?.title, 'Counting lines');
    assert.equal(store.get(id).title, 'Counting lines');
    assert.deepEqual(logger.warnings, []);
  } finally {
    chat.dispose();
    await sleep(50); // dispose closes the session in the background
    await store.close();
    await server.close();
  }
});
