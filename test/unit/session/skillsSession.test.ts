import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Context } from '@mariozechner/pi-ai';
import type { MessageRecord } from '../../../src/core/wire/records';
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
