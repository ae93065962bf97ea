import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { addFigures, zeroFigures, type UsageFigures } from '../../../src/core/format/usage';
import { forkSession } from '../../../src/core/store/fork';
import { readUsageLogs } from '../../../src/core/store/usageLogReader';
import { workspaceKey } from '../../../src/core/workspace/workspaceKey';
import { usageViewData } from '../../../src/vscode/usage/usageViewData';
import { braidIn } from '../../support/cli';
import { fauxAssistantMessage, sessionFixture, type SessionFixture } from '../../support/session';
import { machineASession, pulledCopy } from '../../support/sharedSession';

// Usage is this user's spend: a session pulled from a git remote holds another person's calls,
// so `braid usage` and the Usage view leave it out (and say how many they left out); a fork of
// it counts the turns it adds here, not the calls it copied.

let a: SessionFixture;
let sharedId: string;
const fixtures: SessionFixture[] = [];

before(async () => {
  ({ a, id: sharedId } = await machineASession());
});

after(async () => {
  for (const f of [a, ...fixtures]) await f.cleanup();
});

/** Machine B: the pulled copy of machine A's session, and one session of its own with one turn. */
async function machineB(): Promise<{ b: SessionFixture; ownId: string }> {
  const b = await sessionFixture();
  fixtures.push(b);
  b.store.index.rereadFolder(pulledCopy(a.store, sharedId, b.root + '/store', b.workspace));
  const ownId = await oneTurn(b, undefined, 'my own question');
  return { b, ownId };
}

/** Runs one turn in session `id` (a new session when absent) and returns the session's id. */
async function oneTurn(b: SessionFixture, id: string | undefined, prompt: string): Promise<string> {
  b.faux.setResponses([fauxAssistantMessage('my own answer')]);
  const session = await b.open({}, id);
  await session.submit(prompt);
  await session.waitForIdle();
  await session.close();
  return session.id;
}

const figuresOf = (f: UsageFigures) => ({ calls: f.calls, input: f.input, output: f.output, cacheRead: f.cacheRead, cost: f.cost });

test('usage totals are the own session’s only, and say how many pulled sessions were left out; --include-shared counts them', async () => {
  const { b, ownId } = await machineB();
  const key = workspaceKey(b.workspace);
  const own = b.store.index.sessionUsage(ownId).own;
  const pulled = b.store.index.sessionUsage(sharedId).history;
  assert.ok(own.calls > 0 && pulled.calls > 0, 'both sessions made calls');

  const report = b.store.index.usageReport(key);
  assert.deepEqual(figuresOf(report.total), figuresOf(own));
  assert.deepEqual(
    report.bySession.map((l) => l.key),
    [ownId],
  );
  assert.equal(report.sharedLeftOut, 1);
  assert.deepEqual(figuresOf(b.store.index.usageReport().total), figuresOf(own), 'every workspace: the same');

  const both = zeroFigures();
  addFigures(both, own);
  addFigures(both, pulled);
  const included = b.store.index.usageReport(key, { includeShared: true });
  assert.deepEqual(figuresOf(included.total), figuresOf(both));
  assert.equal(included.sharedLeftOut, 0);

  // The Usage view shows the same figures and the count; its logs (agents, breaks, side calls) leave the pulled session out too.
  const logs = readUsageLogs(b.store, key);
  assert.deepEqual(
    logs.sessions.map((s) => s.row.id),
    [ownId],
  );
  const view = usageViewData(report, (id) => b.store.index.get(id), { scope: 'workspace', workspaceName: 'workspace', now: Date.now() }, logs);
  assert.deepEqual([view.total.calls, view.sharedLeftOut], [own.calls, 1]);

  const braid = (...args: string[]) => braidIn(['--data-dir', b.store.layout.root, '--workspace', b.workspace, 'usage', ...args]);
  const text = await braid();
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, new RegExp(`\\n +${own.calls} +${own.input} .* Total\\n`));
  assert.match(text.out, /\n\(1 session pulled from git remotes not counted: another person's calls; --include-shared counts them\)\n$/);
  const json = JSON.parse((await braid('--json')).out) as { total: UsageFigures; sharedLeftOut: number };
  assert.deepEqual([json.total.calls, json.sharedLeftOut], [own.calls, 1]);
  const all = JSON.parse((await braid('--json', '--include-shared')).out) as typeof json;
  assert.deepEqual([all.total.calls, all.sharedLeftOut], [both.calls, 0]);
  const agents = await braid('--by', 'agent');
  assert.match(agents.out, /\(1 session pulled from git remotes not counted/);
  assert.ok(!agents.out.includes('create new.ts'), 'the pulled session is not listed by agent');
});

test('a fork of a pulled session counts the turns it adds here, not the calls it copied', async () => {
  const { b, ownId } = await machineB();
  const fork = await forkSession(b.store, sharedId);
  await oneTurn(b, fork.id, 'go on here');
  const key = workspaceKey(b.workspace);
  const forkOwn = b.store.index.sessionUsage(fork.id).own;
  assert.ok(forkOwn.calls > 0 && b.store.index.sessionUsage(fork.id).inherited.calls > 0, 'the fork made calls and copied some');

  const expected = zeroFigures();
  addFigures(expected, b.store.index.sessionUsage(ownId).own);
  addFigures(expected, forkOwn);
  const report = b.store.index.usageReport(key);
  assert.deepEqual(figuresOf(report.total), figuresOf(expected));
  assert.deepEqual(report.bySession.map((l) => l.key).sort(), [ownId, fork.id].sort());
  assert.equal(report.sharedLeftOut, 1);
});
