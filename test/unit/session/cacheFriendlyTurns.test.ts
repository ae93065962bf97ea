import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { untold } from '../../../src/core/session/preflight';
import type { UserMessage } from '@mariozechner/pi-ai';
import { commonPrefixLength, promptOf, ScriptedModelServer } from '../../support/modelServer';
import { initRepo } from '../../support/gitRepo';
import { sessionFixture, type SessionFixture } from '../../support/session';
import type { TurnMode } from '../../../src/core/wire/turnMode';

let server: ScriptedModelServer;
let f: SessionFixture;

before(async () => {
  server = new ScriptedModelServer(() => ({ kind: 'text', chunks: ['Done.'] }));
  await server.start();
  f = await sessionFixture();
  initRepo(f.workspace, { 'AGENTS.md': 'Keep functions short.\n', 'README.md': 'A project.\n' });
});

after(async () => {
  await f.cleanup();
  await server.close();
});

const reminder = (text: string) => ({ type: 'text' as const, text: `<system-reminder>\n${text}\n</system-reminder>` });
const user = (...texts: string[]): UserMessage => ({ role: 'user', content: [...texts.map(reminder), { type: 'text', text: 'the prompt' }], timestamp: 0 });

test('a context reminder is given when the model does not have it, or when it changed since the latest of its kind', () => {
  const git = (branch: string) => `Git context of the workspace:\nbranch: ${branch}`;
  const agents = 'Instructions from AGENTS.md in the workspace:\nbe brief';
  assert.deepEqual(untold([agents, git('main')], []), [agents, git('main')], 'a new session gets all of it');
  assert.deepEqual(untold([agents, git('main')], [user(agents, git('main'))]), [], 'nothing changed: nothing again');
  assert.deepEqual(untold([agents, git('dev')], [user(agents, git('main'))]), [git('dev')], 'only what changed');
  assert.deepEqual(
    untold([agents, git('main')], [user(agents, git('main')), user(git('dev'))]),
    [git('main')],
    'back to an earlier state: the latest one counts',
  );
});

/** The requests of `turns` turns, one per turn, in the modes given. */
async function turns(modes: readonly TurnMode[], between?: (turn: number) => void) {
  server.requests.length = 0;
  const session = await f.open({ model: () => server.modelChoice(), gitContext: true });
  for (const [i, mode] of modes.entries()) {
    between?.(i);
    await session.submit(`prompt ${i + 1}`, { mode });
    await session.waitForIdle();
  }
  return server.requests.map((r) => r.body);
}

test('every mode is offered the same tools in the same order, so the prompt keeps its beginning', async () => {
  const bodies = await turns(['agent', 'ask', 'plan', 'auto-edit']);
  const tools = bodies.map((b) => JSON.stringify(b.tools));
  assert.equal(new Set(tools).size, 1, 'one tool list, byte for byte');
  const names = (bodies[0]!.tools as { function: { name: string } }[]).map((t) => t.function.name);
  assert.deepEqual(names, [...names].sort(), 'sorted by name');
  for (let i = 1; i < bodies.length; i++) {
    const [was, now] = [promptOf(bodies[i - 1]!).text, promptOf(bodies[i]!).text];
    assert.equal(commonPrefixLength(was, now), was.length, `call ${i + 1} begins with the whole prompt of call ${i}`);
  }
});

test('the git context and instructions go once, and again only when they changed', async () => {
  const bodies = await turns(['agent', 'agent', 'agent'], (turn) => {
    if (turn === 2) fs.writeFileSync(path.join(f.workspace, 'AGENTS.md'), 'Keep functions very short.\n');
  });
  const lastUser = (b: (typeof bodies)[number]) => JSON.stringify(b.messages!.filter((m) => m.role === 'user').at(-1));
  assert.match(lastUser(bodies[0]!), /Git context of the workspace:[\s\S]*Instructions from AGENTS\.md|Instructions from AGENTS\.md[\s\S]*Git context/);
  assert.doesNotMatch(lastUser(bodies[1]!), /Git context|Instructions from/, 'the second turn repeats neither');
  assert.match(lastUser(bodies[2]!), /Keep functions very short/, 'the changed instructions are given');
  assert.match(lastUser(bodies[2]!), /Git context/, 'and the git status that changed with them');
});
