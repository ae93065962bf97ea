import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';
import { forkSession } from '../../../src/core/store/fork';
import { writeState } from '../../../src/core/format/sessionState';
import type { SessionStore } from '../../../src/core/store/sessionStore';
import { timeAgo, timeAgoChangesAt } from '../../../src/core/timeAgo';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { nextTimeChange, sessionDescription, sessionIcon, SessionsTreeModel, type SessionsNode } from '../../../src/vscode/sessionsTree/sessionsTreeModel';
import { TimeRedraw, type Clock } from '../../../src/vscode/sessionsTree/timeRedraw';
import { addTurn, openStore, tempRoots } from '../../support/store';

const { root, cleanup } = tempRoots();
after(cleanup);

/** A clock whose time moves only when the test says, running the timers that fall due on the way. */
class FakeClock implements Clock {
  private timers: Array<{ at: number; run: () => void }> = [];
  constructor(private time: number) {}
  now(): number {
    return this.time;
  }
  setTimeout(run: () => void, ms: number): unknown {
    const timer = { at: this.time + ms, run };
    this.timers.push(timer);
    return timer;
  }
  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t !== handle);
  }
  advanceTo(time: number): void {
    for (;;) {
      const due = this.timers.filter((t) => t.at <= time).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = due.at;
      due.run();
    }
    this.time = time;
  }
}

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);

async function sessionAt(store: SessionStore, title: string, updatedAt: number, forkOf?: string): Promise<string> {
  let id: string;
  if (forkOf) {
    id = (await forkSession(store, forkOf)).id;
  } else {
    id = (await store.create({ workspaceDir: '/work/alpha', title })).id;
    const w = await store.openWriter(id);
    await addTurn(w, `prompt of ${title}`, 'answer');
    await w.close();
  }
  // A session's time is its log's newest record: the log is stamped with the time wanted, as if written then.
  const dir = store.locate(id);
  writeState(store.layout.stateFile(dir), { ...store.get(id), title, createdAt: updatedAt });
  const log = store.layout.agentLog(dir);
  const lines = fs
    .readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.stringify({ ...JSON.parse(line), ts: updatedAt }));
  fs.writeFileSync(log, `${lines.join('\n')}\n`);
  store.index.rereadFolder(dir);
  return id;
}

test('relative times stay true: the tree redraws when the first shown time changes, forks under their source included', async () => {
  const store = await openStore(root());
  try {
    const source = await sessionAt(store, 'source', T0);
    await sessionAt(store, 'fork', T0 + 20_000, source);
    const model = new SessionsTreeModel(
      {
        list: (f) => store.index.list(f),
        count: (f) => store.index.count(f),
        workspaces: () => store.index.workspaces(),
        subagents: () => [],
        workspaceOf: (id) => store.index.get(id)?.workspaceKey,
        linkedWorkspaces: () => [],
      },
      { key: workspaceKey('/work/alpha'), dir: '/work/alpha' },
    );

    // What VS Code does on each redraw: ask for the nodes, describe each at that moment; the
    // provider then tells the schedule when the first of those descriptions changes.
    const clock = new FakeClock(T0 + 30_000);
    let visible = true;
    let redraws = 0;
    const shown = new Map<string, string>();
    const draw = () => {
      redraws++;
      const walk = (nodes: SessionsNode[]): void => {
        times.expect(nextTimeChange(nodes, clock.now()));
        for (const n of nodes) {
          if (n.kind === 'session') shown.set(n.row.title, sessionDescription(n.row, clock.now()).split(' · ')[0]!);
          walk(model.children(n));
        }
      };
      walk(model.roots());
    };
    const times = new TimeRedraw(draw, () => visible, clock);
    draw();
    assert.deepEqual(Object.fromEntries(shown), { source: 'just now', fork: 'just now' });

    clock.advanceTo(T0 + 60_100);
    assert.deepEqual(Object.fromEntries(shown), { source: '1 min ago', fork: 'just now' }, 'redrawn as the source turned a minute old');
    clock.advanceTo(T0 + 80_100);
    assert.deepEqual(Object.fromEntries(shown), { source: '1 min ago', fork: '1 min ago' }, 'the fork, nested under its source, too');
    clock.advanceTo(T0 + 119_000);
    assert.deepEqual(Object.fromEntries(shown), { source: '1 min ago', fork: '1 min ago' }, 'never "2 min ago" before two minutes');
    clock.advanceTo(T0 + 140_100);
    assert.deepEqual(Object.fromEntries(shown), { source: '2 min ago', fork: '2 min ago' });
    assert.equal(redraws, 5, 'one redraw per change, none in between');

    // Hidden: nothing is redrawn; shown again, every time is true at once.
    visible = false;
    clock.advanceTo(T0 + 20 * 60_000);
    assert.equal(redraws, 5);
    visible = true;
    times.shown();
    assert.deepEqual(Object.fromEntries(shown), { source: '20 min ago', fork: '19 min ago' });
    times.cancel();
  } finally {
    await store.close();
  }
});

test('when a relative time next changes: each whole minute, hour and day of age', () => {
  for (const age of [0, 59_999, 60_000, 89_000, 3_599_000, 3_600_000, 86_399_000, 86_400_000, 5 * 86_400_000 + 7]) {
    const now = T0 + age;
    const at = timeAgoChangesAt(T0, now);
    assert.ok(at > now, `age ${age}`);
    assert.equal(timeAgo(T0, at - 1), timeAgo(T0, now), `unchanged until then (age ${age})`);
    assert.notEqual(timeAgo(T0, at), timeAgo(T0, now), `changed then (age ${age})`);
  }
  assert.equal(timeAgo(T0, T0 + 90_000), '1 min ago', 'whole minutes, never rounded up');
  assert.equal(timeAgoChangesAt(T0 + 5_000, T0), T0 + 65_000, 'a time ahead of the clock is "just now" until a minute past it');
});

test('a fork has an icon of its own; a running or failed fork shows its status', () => {
  const base = { status: 'idle', archived: false, forkedFrom: null } as unknown as Parameters<typeof sessionIcon>[0];
  assert.equal(sessionIcon(base), 'comment-discussion');
  assert.equal(sessionIcon({ ...base, forkedFrom: { sessionId: 'ses_x', turn: 3 } }), 'repo-forked');
  assert.equal(sessionIcon({ ...base, forkedFrom: { sessionId: 'ses_x', turn: null }, status: 'running' }), 'sync~spin');
  assert.equal(sessionIcon({ ...base, archived: true }), 'archive');
});
