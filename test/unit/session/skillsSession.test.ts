import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Context } from '@mariozechner/pi-ai';
import type { MessageRecord } from '../../../src/core/wire/records';
import { readWireLog } from '../../../src/core/wire/wireReader';
import { fauxAssistantMessage, fauxToolCall, sessionFixture } from '../../support/session';

// A session's skills follow the workspace's trust at each turn: an untrusted workspace's
// project skills are neither listed nor loadable; trusted, they are.
test("an untrusted workspace's project skills are not in the system prompt and the skill tool does not find them; trusted, they are", async () => {
  const f = await sessionFixture({ '.claude/skills/deploy/SKILL.md': '---\nname: deploy\ndescription: Deploy the app\n---\nRun DEPLOY_STEPS.\n' });
  try {
    const home = path.join(f.root, 'home');
    fs.mkdirSync(home);
    let trusted = false;
    const systems: string[] = [];
    const capture = (answer: ReturnType<typeof fauxAssistantMessage>) => (context: Context) => {
      systems.push(context.systemPrompt ?? '');
      return answer;
    };
    f.faux.setResponses([
      capture(fauxAssistantMessage(fauxToolCall('skill', { name: 'deploy' }), { stopReason: 'toolUse' })),
      fauxAssistantMessage('No such skill.'),
      capture(fauxAssistantMessage(fauxToolCall('skill', { name: 'deploy' }), { stopReason: 'toolUse' })),
      fauxAssistantMessage('Deployed.'),
    ]);
    const session = await f.open({ trusted: () => trusted, skills: { userConfigDir: path.join(f.root, 'config'), home } });
    await session.submit('deploy please');
    await session.waitForIdle();
    trusted = true;
    await session.submit('deploy now');
    await session.waitForIdle();
    assert.equal(systems.length, 2);
    assert.doesNotMatch(systems[0]!, /deploy/);
    assert.match(systems[1]!, /- deploy: Deploy the app \(\.claude\/skills\/deploy\/SKILL\.md\)/);
    const results = f
      .records(session.id)
      .filter((r): r is MessageRecord => r.t === 'message')
      .flatMap((r) => (r.message.role === 'toolResult' ? [JSON.stringify(r.message.content)] : []));
    assert.equal(results.length, 2);
    assert.match(results[0]!, /there is no skill named \\"deploy\\"/);
    assert.match(results[1]!, /Run DEPLOY_STEPS\./);
  } finally {
    await f.cleanup();
  }
});

test("a subagent is told the session's skills, loads one with the skill tool, and gets scoped instructions for the files it reads", async () => {
  const f = await sessionFixture({
    '.claude/skills/deploy/SKILL.md': '---\nname: deploy\ndescription: Deploy the app\n---\nRun DEPLOY_STEPS.\n',
    '.github/instructions/docs.instructions.md': '---\napplyTo: "docs/**"\n---\nWrite docs in plain words.\n',
    'docs/guide.md': '# Guide\n',
  });
  try {
    const home = path.join(f.root, 'home');
    fs.mkdirSync(home);
    let subagentPrompt = '';
    f.faux.setResponses([
      fauxAssistantMessage(fauxToolCall('task', { description: 'Check deploy', prompt: 'How do we deploy?' }, { id: 't1' }), { stopReason: 'toolUse' }),
      (context: Context) => {
        subagentPrompt = context.systemPrompt ?? '';
        return fauxAssistantMessage(fauxToolCall('skill', { name: 'deploy' }, { id: 's1' }), { stopReason: 'toolUse' });
      },
      fauxAssistantMessage(fauxToolCall('read_file', { path: 'docs/guide.md' }, { id: 'r1' }), { stopReason: 'toolUse' }),
      fauxAssistantMessage('Deploy with DEPLOY_STEPS.'),
      fauxAssistantMessage('Done.'),
    ]);
    const session = await f.open({ trusted: true, skills: { userConfigDir: path.join(f.root, 'config'), home } });
    await session.submit('Ask a subagent how to deploy');
    await session.waitForIdle();
    assert.match(subagentPrompt, /You are a subagent of Braid/);
    assert.match(subagentPrompt, /- deploy: Deploy the app/);
    const agent = f.store.get(session.id).agents.find((a) => a.parentId === 'main');
    const { records } = readWireLog(path.join(f.store.locate(session.id), 'agents', agent!.id, 'wire.jsonl'));
    const results = records
      .filter((r): r is MessageRecord => r.t === 'message' && (r as MessageRecord).message.role === 'toolResult')
      .map((r) => JSON.stringify(r.message.content));
    assert.equal(results.length, 2);
    assert.match(results[0]!, /Run DEPLOY_STEPS\./);
    assert.match(results[1]!, /Write docs in plain words\./);
  } finally {
    await f.cleanup();
  }
});
