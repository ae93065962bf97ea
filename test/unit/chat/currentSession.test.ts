import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { registerFauxProvider, type FauxProviderRegistration } from '@mariozechner/pi-ai';
import { DEFAULT_COMPACTION } from '../../../src/core/session/compaction';
import { Session } from '../../../src/core/session/session';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import type { SessionWriter } from '../../../src/core/store/sessionWriter';
import type { StreamFrame } from '../../../src/protocol/frames';
import type { HostToWebview } from '../../../src/protocol/messages';
import { readSetupSources } from '../../../src/core/setup/sources';
import { NO_STORE, type ChatHost } from '../../../src/vscode/chat/chatHost';
import { CurrentSession } from '../../../src/vscode/chat/currentSession';
import { fauxAssistantMessage, fauxToolCall } from '../../support/session';
import { addTurn, openStore, recordingLogger, tempRoots } from '../../support/store';
import { until } from '../../support/until';
import { TEST_ORIGIN } from '../../support/sharedSession';
import { EVERYTHING, mcpFixture } from '../../support/mcp';
import { silentLogger } from '../../../src/core/logger';
import { McpPromptMenu } from '../../../src/vscode/chat/mcpPromptMenu';
import { McpResourceMentions } from '../../../src/vscode/chat/mcpResourceMentions';

const roots = tempRoots();
after(roots.cleanup);

/** An editor without VS Code: one workspace folder, the faux model, a memory that outlives a "window". */
class FakeHost implements ChatHost {
  readonly posted: HostToWebview[] = [];
  resyncs = 0;
  reveals = 0;
  folders: string[];
  constructor(
    private readonly faux: FauxProviderRegistration,
    workspace: string,
    readonly memory = new Map<string, string>(),
  ) {
    this.folders = [workspace];
  }
  workspaceDirs = () => this.folders;
  isTrusted = () => true;
  chooseModel = async () => ({ model: this.faux.getModel(), thinking: 'off' });
  apiKey = async () => 'faux-key';
  sessionSettings = () => ({ approvalPolicy: { writes: 'ask' as const, shell: 'ask' as const }, compaction: DEFAULT_COMPACTION });
  setupSources = () =>
    readSetupSources({ workspaceDir: this.folders[0]!, trusted: true, env: { XDG_CONFIG_HOME: path.join(this.folders[0]!, '.no-user-config') } });
  shown = { get: () => this.memory.get('shown'), set: (id: string | undefined) => void (id ? this.memory.set('shown', id) : this.memory.delete('shown')) };
  post = (message: HostToWebview) => void this.posted.push(message);
  resync = () => void this.resyncs++;
  reveal = () => void this.reveals++;

  /** Frames posted for session `id` ('' before a session exists). */
  frames(id: string): StreamFrame[] {
    return this.posted.flatMap((m) => (m.type === 'frames' && m.sessionId === id ? m.frames : []));
  }
}

interface Fixture {
  readonly store: SessionStore;
  readonly workspace: string;
  readonly faux: FauxProviderRegistration;
  readonly host: FakeHost;
  readonly logger: ReturnType<typeof recordingLogger>;
  readonly chat: CurrentSession;
  /** A second window on the same store and memory (the window reloaded). */
  reload(): CurrentSession;
}

async function withChat(run: (f: Fixture) => Promise<void>): Promise<void> {
  const root = roots.root();
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  const store = await openStore(path.join(root, 'store'));
  const faux = registerFauxProvider({ provider: 'faux', models: [{ id: 'faux-1' }], tokenSize: { min: 2, max: 4 } });
  const logger = recordingLogger();
  const host = new FakeHost(faux, workspace);
  const chats = [new CurrentSession(store, host, logger)];
  try {
    await run({
      store,
      workspace,
      faux,
      host,
      logger,
      chat: chats[0]!,
      reload: () => {
        const next = new CurrentSession(store, new FakeHost(faux, workspace, host.memory), logger);
        chats.push(next);
        return next;
      },
    });
  } finally {
    for (const chat of chats) chat.dispose();
    await new Promise((resolve) => setTimeout(resolve, 50)); // dispose closes sessions in the background
    faux.unregister();
    await store.close();
  }
}

/** Starts a turn whose model writes `file` and waits until the write asks for approval; returns the session's id. */
async function turnAskingToWrite(f: Fixture, requestId: string, file: string): Promise<string> {
  f.faux.setResponses([
    fauxAssistantMessage(fauxToolCall('write_file', { path: file, content: 'new\n' }, { id: 'w1' }), { stopReason: 'toolUse' }),
    fauxAssistantMessage('Done, or not.'),
  ]);
  await f.chat.prompt(requestId, `Write ${file}`, false);
  const id = f.chat.currentId!;
  await until(() => f.host.frames(id).some((frame) => frame.kind === 'runtime-event' && frame.event.type === 'approval'), 'the write asks');
  return id;
}

const terminal = (frames: StreamFrame[], requestId: string) => frames.find((f) => f.kind === 'turn-terminal' && f.requestId === requestId);

test('a prompt without a session opens a new one, remembers it, streams its turn and says so to the status bar', async () => {
  await withChat(async ({ chat, host, faux }) => {
    faux.setResponses([fauxAssistantMessage('Hello there.')]);
    let changes = 0;
    chat.onDidChange(() => changes++);
    assert.equal(chat.status(), undefined);
    await chat.prompt('req-1', 'Say hello', false);
    const id = chat.currentId!;
    assert.match(id, /^ses_/);
    assert.equal(host.shown.get(), id, 'a reloaded window shows it again');
    await until(() => terminal(host.frames(id), 'req-1') !== undefined, 'the turn ends');
    const frames = host.frames(id);
    assert.deepEqual(
      frames.map((f) => f.cursor),
      frames.map((_, i) => i + 1),
    );
    const end = terminal(frames, 'req-1');
    assert.equal(end?.kind === 'turn-terminal' && end.outcome, 'completed');
    const last = frames.filter((f) => f.kind === 'session-updated').pop();
    assert.equal(last?.kind === 'session-updated' && last.info.title, 'Say hello');
    assert.ok(changes >= 2, "the new session and its turn's end are announced");
    const status = chat.status()!;
    assert.equal(status.title, 'Say hello');
    assert.equal('model' in status, false, "the status bar names the header's model, not the log's");
    assert.ok(status.tokens > 0);
    const view = chat.view();
    assert.deepEqual(
      view.session?.entries.map((e) => e.kind),
      ['user', 'assistant'],
    );
    assert.equal(view.cursor, frames.length);
    assert.deepEqual(view.promptHistory, ['Say hello']);
  });
});

test('a prompt goes to the current session: a second one continues it', async () => {
  await withChat(async ({ chat, host, faux, store }) => {
    faux.setResponses([fauxAssistantMessage('one'), fauxAssistantMessage('two')]);
    await chat.prompt('req-1', 'first', false);
    const id = chat.currentId!;
    await until(() => terminal(host.frames(id), 'req-1') !== undefined, 'the first turn ends');
    await chat.prompt('req-2', 'second', false);
    await until(() => terminal(host.frames(id), 'req-2') !== undefined, 'the second turn ends');
    assert.equal(chat.currentId, id);
    assert.equal(store.index.get(id)?.turnCount, 2);
    assert.equal(store.index.list({}).length, 1, 'no other session was created');
  });
});

test("switching sessions bumps the generation: the old session's late frames are dropped, its approval denied", async () => {
  await withChat(async (f) => {
    const { chat, host, workspace } = f;
    const old = await turnAskingToWrite(f, 'req-1', 'notes.md');
    assert.equal(host.reveals, 1, 'the chat came forward for the approval');
    const seen = host.frames(old).length;
    const resyncs = host.resyncs;
    await chat.newSession();
    assert.equal(chat.currentId, undefined);
    assert.equal(host.shown.get(), undefined);
    assert.equal(host.resyncs, resyncs + 1, 'the pages take a fresh snapshot');
    // The denied write and the answer after it happened while the old session closed: none reached the pages.
    assert.equal(host.frames(old).length, seen, 'no frame of the old session after the switch');
    assert.equal(fs.existsSync(path.join(workspace, 'notes.md')), false, 'the approval was denied');
    assert.equal(chat.cursor, 0);
    assert.equal(chat.view().session, null);
  });
});

test('a prompt sent while the chat switches to a new session goes to the new session, and nothing is lost', async () => {
  await withChat(async ({ chat, host, faux, store }) => {
    faux.setResponses([fauxAssistantMessage('one'), fauxAssistantMessage('two')]);
    await chat.prompt('req-1', 'first', false);
    const old = chat.currentId!;
    await until(() => terminal(host.frames(old), 'req-1') !== undefined, 'the first turn ends');
    // New Session and a prompt typed at once: the prompt arrives while the old session is closing.
    const switching = chat.newSession();
    const prompted = chat.prompt('req-2', 'typed during the switch', false);
    await Promise.all([switching, prompted]);
    const id = chat.currentId!;
    assert.notEqual(id, old, 'the prompt went to a new session');
    assert.equal(host.shown.get(), id, 'and the window shows that session');
    await until(() => terminal(host.frames(id), 'req-2') !== undefined, 'its turn ends');
    assert.equal(store.index.get(id)?.title, 'typed during the switch');
    assert.equal(store.index.get(old)?.turnCount, 1, 'the old session got nothing');
  });
});

test('the queue shown comes from the open session: a prompt queued during a turn, then cancelled', async () => {
  await withChat(async (f) => {
    const { chat, host } = f;
    const id = await turnAskingToWrite(f, 'req-1', 'a.md');
    await chat.prompt('req-2', 'then this', false);
    const queued = () =>
      host
        .frames(id)
        .filter((f) => f.kind === 'session-updated')
        .pop();
    const update = queued();
    assert.deepEqual(update?.kind === 'session-updated' && update.info.queue.map((q) => q.text), ['then this']);
    const promptId = update?.kind === 'session-updated' ? update.info.queue[0]!.promptId : '';
    await chat.queueAction('cancel', promptId);
    const after = queued();
    assert.deepEqual(after?.kind === 'session-updated' && after.info.queue, []);
    assert.equal(chat.view().session?.activeRequest, 'req-1', 'the running turn is still the first prompt');
    chat.cancel();
    await until(() => terminal(host.frames(id), 'req-1') !== undefined, 'the stopped turn ends');
  });
});

test('frames and the status bar read the session from memory: a turn reads state.json no more than the session itself does', async () => {
  await withChat(async ({ chat, host, faux, store, workspace }) => {
    let reads = 0;
    const get = store.get.bind(store);
    store.get = (id: string) => (reads++, get(id));
    // The same turn through a bare Session: the core's own reads.
    faux.setResponses([fauxAssistantMessage('one')]);
    const bare = await Session.open({
      store,
      workspaceDirs: [workspace],
      model: host.chooseModel,
      apiKey: host.apiKey,
      systemPrompt: 's',
      approvals: { request: async () => 'allow' },
      trusted: true,
      logger: recordingLogger(),
    });
    reads = 0;
    await bare.submit('first', { messageKey: 'k1' });
    await bare.waitForIdle();
    const coreReads = reads;
    await bare.close();
    // Through the chat, with the status bar asking at every change as the extension's does.
    faux.setResponses([fauxAssistantMessage('one')]);
    chat.onDidChange(() => void chat.status());
    await chat.prompt('req-0', 'warm up', false); // opening a session reads its state; the turn is what counts
    const id = chat.currentId!;
    await until(() => terminal(host.frames(id), 'req-0') !== undefined, 'the first turn ends');
    faux.setResponses([fauxAssistantMessage('two')]);
    const before = host.frames(id).length;
    reads = 0;
    await chat.prompt('req-1', 'second', false);
    await until(() => terminal(host.frames(id), 'req-1') !== undefined, 'the turn ends');
    assert.ok(host.frames(id).length - before >= 5, 'the turn made frames');
    assert.equal(reads, coreReads, `the chat read state.json ${reads - coreReads} more times than the session`);
  });
});

test('after a reload the window shows the session it showed; one that went away is forgotten', async () => {
  await withChat(async ({ chat, host, faux, store, logger, reload }) => {
    faux.setResponses([fauxAssistantMessage('kept')]);
    await chat.prompt('req-1', 'Remember me', false);
    const id = chat.currentId!;
    await until(() => terminal(host.frames(id), 'req-1') !== undefined, 'the turn ends');
    chat.dispose();
    await until(() => !fs.existsSync(path.join(store.locate(id), 'writer.lock')), 'the closed session lets go of its lease');
    const again = reload();
    const changes: string[] = [];
    again.onDidChange(() => changes.push(again.currentId ?? ''));
    await again.restore();
    assert.equal(again.currentId, id);
    assert.deepEqual(changes, [id]);
    assert.equal(again.view().session?.readOnly, undefined, 'open for writing again');
    assert.deepEqual(
      again.view().session?.entries.map((e) => e.kind),
      ['user', 'assistant'],
    );
    // A session deleted meanwhile: the next reload forgets it.
    await again.newSession();
    host.memory.set('shown', id);
    await store.delete(id);
    const third = reload();
    await third.restore();
    assert.equal(third.currentId, undefined);
    assert.equal(host.memory.get('shown'), undefined, 'forgotten');
    assert.ok(logger.infos.some((m) => m.includes(`could not show session ${id} again`)));
  });
});

test('a session another window writes is followed read-only: prompts and compaction are refused, its turns show up', async () => {
  await withChat(async ({ chat, host, store, workspace }) => {
    const created = await store.create({ workspaceDir: workspace });
    const other: SessionWriter = await store.openWriter(created.id); // the other window
    try {
      await chat.openSession(created.id);
      assert.equal(chat.currentId, created.id);
      assert.equal(chat.view().session?.readOnly, true);
      await chat.prompt('req-1', 'hello', false);
      const failed = terminal(
        host.posted.flatMap((m) => (m.type === 'frames' ? m.frames : [])),
        'req-1',
      );
      assert.match(failed?.kind === 'turn-terminal' ? (failed.error ?? '') : '', /Another window is writing this session/);
      await assert.rejects(chat.compact(), /compact it there/);
      await assert.rejects(chat.undoRewind(created.id), /undo the rewind there/);
      const resyncs = host.resyncs;
      await addTurn(other, 'from the other window', 'answered there');
      await until(() => host.resyncs > resyncs, 'the follower noticed the new turn');
      assert.deepEqual(
        chat.view().session?.entries.map((e) => e.kind),
        ['user', 'assistant'],
      );
      assert.equal(chat.view().session?.info.title, 'from the other window');
    } finally {
      await other.close();
    }
  });
});

test('restoring waits a moment for a window letting go of the session, then writes it', async () => {
  await withChat(async ({ host, store, workspace, reload }) => {
    const created = await store.create({ workspaceDir: workspace });
    const closing = await store.openWriter(created.id); // the window before the reload, still closing
    host.memory.set('shown', created.id);
    const chat = reload();
    setTimeout(() => void closing.close(), 300);
    await chat.restore();
    assert.equal(chat.currentId, created.id);
    assert.equal(chat.view().session?.readOnly, undefined, 'opened for writing once the lease was free');
  });
});

test('a session of another folder is shown read-only with the reason', async () => {
  await withChat(async ({ chat, store, host, workspace }) => {
    const elsewhere = path.join(path.dirname(workspace), 'elsewhere');
    fs.mkdirSync(elsewhere);
    const created = await store.create({ workspaceDir: elsewhere });
    await chat.openSession(created.id);
    const view = chat.view().session!;
    assert.equal(view.readOnly, true);
    assert.match(view.readOnlyReason ?? '', /belongs to .*elsewhere.*read-only in this window/);
    await chat.prompt('req-1', 'hi', false);
    assert.match(JSON.stringify(host.posted.at(-1)), /belongs to/);
  });
});

test('a session pulled from a git remote is shown read-only, saying where it came from; prompts, compaction and memory are refused', async () => {
  await withChat(async ({ chat, store, host, workspace }) => {
    const created = await store.create({ workspaceDir: workspace });
    await store.update(created.id, (s) => ({ ...s, shared: TEST_ORIGIN }));
    await chat.openSession(created.id);
    const view = chat.view().session!;
    const note = `This session was pulled from ${TEST_ORIGIN.remote} (Ada on ada-laptop); it is read-only here. Fork it to continue.`;
    assert.deepEqual([view.readOnly, view.readOnlyReason], [true, note]);
    await chat.prompt('req-1', 'go on', false);
    const failed = terminal(host.frames(''), 'req-1');
    assert.equal(failed?.kind === 'turn-terminal' ? failed.error : undefined, note);
    await assert.rejects(chat.compact(), { message: note });
    await assert.rejects(async () => chat.updateMemory(), { message: note });
    await assert.rejects(chat.undoRewind(created.id), { message: note });
    assert.equal(store.get(created.id).turnCount, 0);
  });
});

test('a rewind can be undone from the chat until the session goes on', async () => {
  await withChat(async ({ chat, host, faux, store }) => {
    faux.setResponses([fauxAssistantMessage('one'), fauxAssistantMessage('two'), fauxAssistantMessage('three')]);
    await chat.prompt('req-1', 'first', false);
    const id = chat.currentId!;
    await until(() => terminal(host.frames(id), 'req-1') !== undefined, 'turn 1 ends');
    await chat.prompt('req-2', 'second', false);
    await until(() => terminal(host.frames(id), 'req-2') !== undefined, 'turn 2 ends');
    const second = store.newestPage(id, 10).messages.filter((m) => m.message.role === 'user')[1]!;
    const result = await chat.rewind(second.id, false);
    assert.equal(result.turnsDropped, 1);
    assert.ok(host.frames(id).some((f) => f.kind === 'messages-rewound'));
    chat.noteRewind(id, 'Rewound 1 turn.', 'second');
    assert.equal(chat.view().session?.undoableRewind, 'Rewound 1 turn.');
    const undone = await chat.undoRewind(id);
    assert.deepEqual({ turns: undone.turns, prompt: undone.prompt }, { turns: 1, prompt: 'second' });
    assert.equal(chat.view().session?.undoableRewind, undefined);
    chat.noteRewind(id, 'Rewound 1 turn.', 'again');
    await chat.prompt('req-3', 'third', false);
    assert.equal(chat.view().session?.undoableRewind, undefined, 'a new prompt ends the undo');
    await until(() => terminal(host.frames(id), 'req-3') !== undefined, 'turn 3 ends');
  });
});

test('a session opened at a search result carries its turn in every snapshot until a prompt is sent or it is opened otherwise', async () => {
  await withChat(async ({ chat, host, faux }) => {
    faux.setResponses([fauxAssistantMessage('one'), fauxAssistantMessage('two')]);
    await chat.prompt('req-1', 'first', false);
    const id = chat.currentId!;
    await until(() => terminal(host.frames(id), 'req-1') !== undefined, 'turn 1 ends');
    const at = { turn: 1, from: 'msg_a', to: 'msg_b', words: ['one'] };
    await chat.openSession(id, at);
    const reveal = chat.view().session?.reveal;
    assert.deepEqual({ ...reveal, id: '' }, { ...at, id: '' });
    assert.equal(chat.view().session?.reveal?.id, reveal?.id, 'the same reveal in every snapshot: a page scrolls to it once');
    await chat.openSession(id, at);
    assert.notEqual(chat.view().session?.reveal?.id, reveal?.id, 'opened from a search again: a new reveal');
    await chat.prompt('req-2', 'second', false);
    assert.equal(chat.view().session?.reveal, undefined, 'a prompt ends it');
    await until(() => terminal(host.frames(id), 'req-2') !== undefined, 'turn 2 ends');
    await chat.openSession(id, at);
    await chat.openSession(id);
    assert.equal(chat.view().session?.reveal, undefined, 'opened without a turn (the tree, a title match): none');
  });
});

test('without a folder or a store a prompt fails with what to do, and nothing is shown', async () => {
  await withChat(async ({ chat, host, store }) => {
    host.folders = [];
    await chat.prompt('req-1', 'hello', false);
    assert.match(JSON.stringify(host.frames('')), /Open a folder first/);
    assert.equal(store.index.list({}).length, 0);
  });
  const root = roots.root();
  const faux = registerFauxProvider({ provider: 'faux', models: [{ id: 'faux-1' }] });
  try {
    const host = new FakeHost(faux, root);
    host.memory.set('shown', 'ses_kept');
    const chat = new CurrentSession(undefined, host, recordingLogger());
    await chat.prompt('req-1', 'hello', false);
    const failed = terminal(host.frames(''), 'req-1');
    assert.equal(failed?.kind === 'turn-terminal' && failed.error, NO_STORE);
    await chat.restore();
    assert.equal(host.memory.get('shown'), 'ses_kept', 'kept for a window whose store opens');
    assert.deepEqual(chat.view(), { session: null, live: [], cursor: 0, promptHistory: [] });
    assert.equal(chat.status(), undefined);
  } finally {
    faux.unregister();
  }
});

test('side questions: none without a session; an answered one is kept as a fork', async () => {
  await withChat(async ({ chat, host, faux, store }) => {
    await chat.askSide('side-1', 'what?');
    assert.match(JSON.stringify(host.posted.at(-1)), /Open or start a session first/);
    faux.setResponses([fauxAssistantMessage('main answer'), fauxAssistantMessage('side answer')]);
    await chat.prompt('req-1', 'main', false);
    const id = chat.currentId!;
    await until(() => terminal(host.frames(id), 'req-1') !== undefined, 'the turn ends');
    await chat.askSide('side-2', 'and this?');
    assert.match(JSON.stringify(host.posted.at(-1)), /"state":"answered".*side answer/);
    const fork = await chat.keepSide('side-2');
    assert.equal(store.index.get(fork!)?.forkedFrom?.sessionId, id);
  });
});

test("an MCP server's prompt and a resource chip reach the model; a prompt that cannot be had sends nothing and says why", async () => {
  const m = mcpFixture();
  m.userServers({ everything: { command: EVERYTHING } });
  const hub = m.hub();
  const menu = new McpPromptMenu(() => hub, silentLogger);
  const resources = new McpResourceMentions(() => hub, 20_000);
  try {
    await withChat(async ({ chat, host, faux, store }) => {
      // Missing its required argument: no session is made, no request reaches the model, the page says why.
      await chat.prompt('req-0', '/mcp__everything__args-prompt', false, { expand: (t) => menu.expand(t) });
      const refused = terminal(host.frames(''), 'req-0');
      assert.match(refused?.kind === 'turn-terminal' ? (refused.error ?? '') : '', /needs city/);
      assert.equal(chat.currentId, undefined);

      const seen: string[] = [];
      faux.setResponses([
        (context) => {
          seen.push(JSON.stringify(context.messages));
          return fauxAssistantMessage('Sunny.');
        },
      ]);
      const [chip] = await resources.find('architecture', 1);
      await chat.prompt('req-1', '/mcp__everything__args-prompt Paris', false, {
        expand: (t) => menu.expand(t),
        attachments: async () => [{ ...chip!, text: await resources.read(chip!) }],
      });
      const id = chat.currentId!;
      await until(() => terminal(host.frames(id), 'req-1') !== undefined, 'the turn ends');
      assert.match(seen[0]!, /\/mcp__everything__args-prompt Paris\\n\\nWhat's weather in Paris\?/);
      assert.match(seen[0]!, /uri=\\"everything:demo:\/\/resource\/static\/document\/architecture.md\\"[^]*Everything Server – Architecture/);
      // The log shows what was typed first, and the chip with the resource it named.
      const entries = chat.view().session!.entries;
      const user = entries.find((e) => e.kind === 'user');
      assert.match(JSON.stringify(user), /"text":"\/mcp__everything__args-prompt Paris\\n\\nWhat's weather/);
      assert.match(JSON.stringify(user), /"kind":"mcpResource","label":"architecture.md","detail":"everything:demo:/);
      assert.ok(store.index.get(id));
    });
  } finally {
    await m.cleanup();
  }
});

test("the page's info carries the model's todo list as soon as its todo_write call ends, and after the turn", async () => {
  await withChat(async ({ chat, host, faux }) => {
    const todos = [
      { text: 'Read the parser', status: 'done' },
      { text: 'Fix the off-by-one', status: 'in_progress' },
    ];
    faux.setResponses([fauxAssistantMessage(fauxToolCall('todo_write', { todos }), { stopReason: 'toolUse' }), fauxAssistantMessage('On it.')]);
    await chat.prompt('req-todo', 'Fix the parser', false);
    const id = chat.currentId!;
    await until(() => terminal(host.frames(id), 'req-todo') !== undefined, 'the turn ends');
    const frames = host.frames(id);
    const listed = frames.findIndex((f) => f.kind === 'session-updated' && f.info.todos !== undefined);
    const answered = frames.findIndex((f) => f.kind === 'message-committed' && f.entries.some((e) => e.kind === 'assistant' && e.text === 'On it.'));
    assert.ok(listed >= 0 && listed < answered, 'the list is shown while the turn goes on');
    const last = frames.filter((f) => f.kind === 'session-updated').pop();
    assert.deepEqual(last?.kind === 'session-updated' && last.info.todos, todos);
  });
});

test("a whole-session change closes the chat's idle session for it, shows it read-only meanwhile, then writes it again with what the change added", async () => {
  await withChat(async ({ chat, host, faux, store }) => {
    faux.setResponses([fauxAssistantMessage('one'), fauxAssistantMessage('two')]);
    await chat.prompt('req-1', 'first', false);
    const id = chat.currentId!;
    await until(() => terminal(host.frames(id), 'req-1') !== undefined, 'the first turn ends');
    assert.deepEqual(chat.writing, { id, running: false });
    let prompted: Promise<void> | undefined;
    const result = await chat.closedWhile(id, 'Syncing.', async () => {
      // The change takes the session's writer lease (as a sync does): free, since the chat closed it.
      const writer = await store.openWriter(id);
      try {
        assert.equal(chat.view().session?.readOnly, true);
        assert.equal(chat.view().session?.readOnlyReason, 'Syncing.');
        prompted = chat.prompt('req-2', 'typed during the change', false); // waits for the session to open again
        await addTurn(writer, 'from the other machine', 'answered there');
      } finally {
        await writer.close();
      }
      return 'done';
    });
    assert.equal(result, 'done');
    assert.deepEqual(chat.writing, { id, running: false }, 'written here again');
    assert.equal(chat.view().session?.readOnly, undefined);
    await prompted;
    await until(() => terminal(host.frames(id), 'req-2') !== undefined, 'the prompt typed meanwhile ran in the session');
    assert.equal(store.index.get(id)?.turnCount, 3, "the other machine's turn, then the prompt typed meanwhile");
  });
});

test('a whole-session change leaves a session the chat does not write idle here: it just runs', async () => {
  await withChat(async ({ chat, store, workspace }) => {
    const created = await store.create({ workspaceDir: workspace });
    assert.equal(chat.writing, undefined);
    const ran = await chat.closedWhile(created.id, 'Syncing.', async () => 'ran');
    assert.equal(ran, 'ran');
    assert.equal(chat.currentId, undefined, 'nothing was opened');
  });
});
