import assert from 'node:assert/strict';
import path from 'node:path';
import { after, test } from 'node:test';
import type { SessionRow } from '../../../src/core/index/indexRows';
import { forkSession } from '../../../src/core/store/fork';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import { readSubagents } from '../../../src/core/store/subagents';
import { forkIntoWorktree, linkedWorkspaces } from '../../../src/core/store/worktreeFork';
import { initRepo } from '../../support/gitRepo';
import { WireLogWriter } from '../../../src/core/wire/wireLog';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import {
  folderName,
  nestForks,
  sessionDescription,
  sessionIcon,
  SessionsTreeModel,
  workspaceNodes,
  type SessionsNode,
} from '../../../src/vscode/sessionsTree/sessionsTreeModel';
import { addTurn, assistantMessage, openStore, tempRoots, userMessage } from '../../support/store';
import { TEST_ORIGIN } from '../../support/sharedSession';
import { resultPicks, turnsAndBranch } from '../../../src/vscode/commands/sessionPicks';

const { root, cleanup } = tempRoots();
after(cleanup);

/** A model over a real store's index, as the tree provider builds it. */
function modelOf(store: SessionStore, dir: string | undefined): SessionsTreeModel {
  return new SessionsTreeModel(
    {
      list: (f) => store.index.list(f),
      count: (f) => store.index.count(f),
      workspaces: () => store.index.workspaces(),
      subagents: (id) => readSubagents(store.layout, store.locate(id), store.get(id)),
      workspaceOf: (id) => store.index.get(id)?.workspaceKey,
      linkedWorkspaces: (key) => linkedWorkspaces(store, key),
    },
    dir ? { key: workspaceKey(dir), dir } : undefined,
  );
}

/** Labels of a subtree, indented two spaces per level, expanding everything. */
function outline(model: SessionsTreeModel, nodes: SessionsNode[], depth = 0): string[] {
  return nodes.flatMap((n) => {
    const label =
      n.kind === 'session'
        ? n.row.title
        : n.kind === 'archived' || n.kind === 'shared'
          ? `${n.kind === 'shared' ? 'Shared' : 'Archived'} (${n.count})`
          : n.kind === 'workspace'
            ? `${n.name}${n.current ? ' *' : ''}`
            : `agent: ${n.agent.title}`;
    return [`${'  '.repeat(depth)}${label}`, ...outline(model, model.children(n), depth + 1)];
  });
}

async function session(store: SessionStore, dir: string, title: string): Promise<string> {
  const s = await store.create({ workspaceDir: dir, title });
  const w = await store.openWriter(s.id);
  await addTurn(w, `prompt of ${title}`, 'answer');
  await w.close();
  return s.id;
}

test('this workspace: live sessions newest first with forks nested, then a collapsed Archived group with its count', async () => {
  const store = await openStore(root());
  try {
    const a = await session(store, '/work/alpha', 'first');
    await session(store, '/work/alpha', 'second');
    const old = await session(store, '/work/alpha', 'old one');
    await session(store, '/work/beta', 'elsewhere');
    await store.archive(old);
    const fork = await forkSession(store, a, {});
    await store.rename(fork.id, 'fork of first');
    const model = modelOf(store, '/work/alpha');
    assert.deepEqual(outline(model, model.roots()), [
      // The fork is the newest session, yet it sits under its (older) source.
      'second',
      'first',
      '  fork of first',
      'Archived (1)',
      '  old one',
    ]);
    assert.equal(model.parent(model.find(fork.id)!)?.id, a, 'reveal can walk up from the fork');
    await store.restore(old);
    assert.deepEqual(outline(model, model.roots()), ['old one', 'second', 'first', '  fork of first'], 'no Archived group once it is empty');
    // The tree redraws on the index's change events: deleting and undeleting must send them at once.
    let changes = 0;
    const stop = store.index.onDidChange(() => changes++);
    await store.delete(old);
    assert.equal(changes, 1, 'delete tells listeners');
    assert.deepEqual(outline(model, model.roots()), ['second', 'first', '  fork of first']);
    await store.undelete(old);
    assert.ok(changes >= 2, 'undelete tells listeners');
    stop();
  } finally {
    await store.close();
  }
});

test("sessions pulled from a git remote sit in a Shared group, each with who shared it from which machine; forks of them are this machine's", async () => {
  const store = await openStore(root());
  try {
    await session(store, '/work/alpha', 'mine');
    const pulled = await session(store, '/work/alpha', 'theirs');
    await store.update(pulled, (s) => ({ ...s, shared: TEST_ORIGIN }));
    const fork = await forkSession(store, pulled, {});
    await store.rename(fork.id, 'my fork of theirs');
    const model = modelOf(store, '/work/alpha');
    assert.deepEqual(outline(model, model.roots()), ['my fork of theirs', 'mine', 'Shared (1)', '  theirs']);
    const node = model.locate(pulled);
    assert.equal(node?.kind === 'session' && sessionDescription(node.row, node.row.updatedAt), 'Ada@ada-laptop · just now · test-model · 1 turn');
    assert.equal(model.parent(node!)?.id, `shared:${workspaceKey('/work/alpha')}`);
    assert.equal(node?.kind === 'session' && sessionIcon(node.row), 'cloud-download');
    assert.deepEqual(
      store.index.list({ workspaceKey: workspaceKey('/work/alpha'), shared: true }).map((r) => [r.title, r.shared?.author]),
      [['theirs', 'Ada']],
    );
  } finally {
    await store.close();
  }
});

test('all workspaces: one node per workspace, this one first and marked, each with its sessions and Archived group', async () => {
  const store = await openStore(root());
  try {
    await session(store, '/work/alpha', 'a1');
    const b1 = await session(store, '/work/beta', 'b1');
    await session(store, '/work/gamma', 'g1');
    await store.archive(b1);
    await session(store, '/work/beta', 'b2');
    const model = modelOf(store, '/work/alpha');
    model.allWorkspaces = true;
    assert.deepEqual(outline(model, model.roots()), ['alpha *', '  a1', 'beta', '  b2', '  Archived (1)', '    b1', 'gamma', '  g1']);
    const ws = model.roots()[1]!;
    assert.equal(ws.kind === 'workspace' && ws.workspaceDir, '/work/beta');
    // A window with no sessions of its own still lists its workspace first.
    const fresh = modelOf(store, '/work/new');
    fresh.allWorkspaces = true;
    assert.deepEqual(
      fresh.roots().map((n) => n.kind === 'workspace' && `${n.name}${n.current ? ' *' : ''}`),
      ['new *', 'beta', 'gamma', 'alpha'],
    );
    fresh.allWorkspaces = false;
    assert.deepEqual(fresh.roots(), []);
  } finally {
    await store.close();
  }
});

test('subagents come from their own logs: counted in the row, listed under their session with usage', async () => {
  const store = await openStore(root());
  try {
    const id = await session(store, '/work/alpha', 'delegating');
    const plain = await session(store, '/work/alpha', 'plain');
    const agentId = 'agent_01testsubagent';
    const log = WireLogWriter.open(store.layout.agentLog(store.locate(id), agentId));
    await log.append({ t: 'agent', agentId, parentAgentId: 'main', purpose: 'Read the notes' });
    await log.append({ t: 'message', turn: 1, id: 'msg_1', message: userMessage('read notes.md') });
    await log.append({ t: 'message', turn: 1, id: 'msg_2', message: assistantMessage('The notes say hi.') });
    await log.close();
    store.index.rereadFolder(store.locate(id)); // as a writer tells the index at the turn's end

    assert.equal(store.index.get(id)?.subagents, 1);
    assert.equal(store.index.get(plain)?.subagents, 0);
    assert.equal(store.index.search('delegating', {})[0]?.subagents, 1, 'search rows carry the count too');
    const model = modelOf(store, '/work/alpha');
    const roots = model.roots();
    const delegating = roots.find((n) => n.id === id)!;
    const [agent] = model.children(delegating);
    assert.equal(agent?.kind, 'subagent');
    if (agent?.kind !== 'subagent') return;
    assert.equal(agent.agent.title, 'Read the notes');
    assert.equal(agent.agent.messageCount, 2);
    assert.equal(agent.agent.outcome, 'stop');
    assert.deepEqual(
      { input: agent.agent.usage.input, output: agent.agent.usage.output, cacheRead: agent.agent.usage.cacheRead },
      { input: 10, output: 5, cacheRead: 2 },
    );
    assert.equal(model.parent(agent)?.id, id);
    assert.deepEqual(model.children(roots.find((n) => n.id === plain)!), [], 'no subagents read for a session without any');
  } finally {
    await store.close();
  }
});

test('a turn in progress shows as running in the index row the tree reads', async () => {
  const store = await openStore(root());
  try {
    const s = await store.create({ workspaceDir: '/work/alpha' });
    const w = await store.openWriter(s.id);
    let changes = 0;
    const stop = store.index.onDidChange(() => changes++);
    await w.beginTurn('p1', { provider: 'test', id: 'test-model', thinking: 'off' });
    assert.equal(store.index.get(s.id)?.status, 'running');
    assert.ok(changes > 0, 'listeners heard of it');
    await w.endTurn('completed');
    assert.equal(store.index.get(s.id)?.status, 'idle');
    stop();
    await w.close();
  } finally {
    await store.close();
  }
});

const row = (id: string, forkedFrom?: string, extra: Partial<SessionRow> = {}): SessionRow => ({
  id,
  workspaceKey: 'k',
  workspaceDir: '/w',
  title: id,
  titleSource: 'user',
  status: 'idle',
  error: null,
  kind: 'conversation',
  visibility: 'visible',
  archived: false,
  forkedFrom: forkedFrom ? { sessionId: forkedFrom, turn: null } : null,
  model: null,
  createdAt: 0,
  updatedAt: 0,
  turnCount: 1,
  messageCount: 2,
  firstPrompt: '',
  lastPreview: '',
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0 },
  logBytes: 0,
  stateMtime: 0,
  subagents: 0,
  branch: null,
  shared: null,
  ...extra,
});

test('nestForks keeps order, nests forks of forks, and leaves orphans and self-references at the top', () => {
  const nodes = nestForks([row('c', 'b'), row('a'), row('b', 'a'), row('orphan', 'gone'), row('self', 'self')]);
  const flat = (ns: typeof nodes, d = 0): string[] => ns.flatMap((n) => [`${d}:${n.id}`, ...flat([...n.forks], d + 1)]);
  assert.deepEqual(flat(nodes), ['0:a', '1:b', '2:c', '0:orphan', '0:self']);
});

test('descriptions, folder names and workspace order', () => {
  const now = Date.UTC(2026, 0, 1);
  assert.equal(
    sessionDescription(row('x', undefined, { updatedAt: now - 5 * 60_000, model: { provider: 'p', id: 'm-1' }, turnCount: 3 }), now),
    '5 min ago · m-1 · 3 turns',
  );
  assert.equal(sessionDescription(row('x', undefined, { updatedAt: now, turnCount: 1 }), now), 'just now · 1 turn');
  const onBranch = row('x', undefined, { updatedAt: now, turnCount: 2, branch: 'feature/x', model: { provider: 'p', id: 'm-1' } });
  assert.equal(sessionDescription(onBranch, now), 'just now · feature/x · m-1 · 2 turns');
  assert.equal(sessionDescription(onBranch, now, 'feature/x'), 'just now · m-1 · 2 turns', "a worktree fork's branch, named first, is not said again");
  // Open Session's picker: the session's line says its branch after its turns.
  assert.equal(turnsAndBranch(onBranch), '2 turns · feature/x');
  assert.equal(turnsAndBranch(row('x')), '1 turns');
  assert.equal(resultPicks(onBranch, 0, [])[0]!.description, '2 turns · feature/x');
  assert.equal(folderName('/home/me/project/'), 'project');
  assert.equal(folderName('C:\\src\\app'), 'app');
  const ws = (key: string, updatedAt: number) => ({ workspaceKey: key, workspaceDir: `/w/${key}`, sessions: 1, updatedAt });
  assert.deepEqual(
    workspaceNodes([ws('old', 1), ws('here', 2), ws('new', 3)], { key: 'here', dir: '/w/here' }).map((n) => `${n.name}${n.current ? '*' : ''}`),
    ['here*', 'new', 'old'],
  );
});

test('a new fork can be revealed from a listing made before it, and with every workspace shown', async () => {
  const store = await openStore(root());
  try {
    const source = await session(store, '/work/alpha', 'source');
    await session(store, '/work/beta', 'elsewhere');
    const model = modelOf(store, '/work/alpha');
    const before = model.roots().find((n) => n.id === source)!; // what VS Code holds from its last listing
    const fork = await forkSession(store, source, {});
    const node = model.locate(fork.id);
    assert.equal(node?.id, fork.id);
    assert.equal(model.parent(node!)?.id, source);
    assert.deepEqual(
      model.children(before).map((n) => n.id),
      [fork.id],
      'the source listed earlier has the fork among its children',
    );

    model.allWorkspaces = true;
    model.roots(); // the tree shows workspace nodes, none of them expanded
    const second = await forkSession(store, source, {});
    const found = model.locate(second.id)!;
    const chain: string[] = [];
    for (let n: SessionsNode | undefined = found; n; n = model.parent(n))
      chain.push(n.kind === 'workspace' ? n.name : n.kind === 'session' ? n.row.title : n.id);
    assert.deepEqual(chain, ['Fork 2 of source', 'source', 'alpha']);
  } finally {
    await store.close();
  }
});

test("a fork into a worktree sits under its source in the source's workspace, and at the top of the worktree's own", async () => {
  const base = root();
  const repo = path.join(base, 'repo');
  initRepo(repo, { 'a.txt': 'a\n' });
  const store = await openStore(path.join(base, 'store'));
  try {
    const source = await session(store, repo, 'the source');
    await session(store, repo, 'another');
    const { fork, location } = await forkIntoWorktree(store, source);
    await store.rename(fork.id, 'the worktree fork');
    assert.deepEqual(outline(modelOf(store, repo), modelOf(store, repo).roots()), ['another', 'the source', '  the worktree fork']);
    const there = modelOf(store, location.worktree);
    assert.deepEqual(outline(there, there.roots()), ['the worktree fork']);
  } finally {
    await store.close();
  }
});
