import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChatModel } from '../../../media/src/chatModel';
import { welcomeExamples, welcomeModelLine } from '../../../media/src/welcomePrompts';
import { demoAgentReply } from '../../../src/demo/demoAgent';
import type { SessionView } from '../../../src/protocol/messages';

// The Chat page's welcome and Undo bar, without a DOM: what they offer, and when.
test("the welcome offers the demo's own requests with the demo model, general prompts otherwise, and names the model", () => {
  const demo = { provider: 'openai-compatible', id: 'braid-demo', demo: true };
  const examples = welcomeExamples(demo);
  assert.equal(examples.length, 3);
  for (const prompt of examples) {
    const reply = demoAgentReply({ messages: [{ role: 'user', content: [{ type: 'text', text: prompt }] }] });
    assert.equal(reply.kind, 'toolCalls', `the demo acts on "${prompt}" with a tool`);
  }
  assert.match(welcomeModelLine(demo), /demo agent.*not a language model/);
  const real = { provider: 'anthropic', id: 'claude-sonnet-4-5', demo: false };
  assert.equal(welcomeExamples(real).length, 3);
  assert.notDeepEqual(welcomeExamples(real), examples);
  assert.equal(welcomeModelLine(real), 'Model: anthropic · claude-sonnet-4-5');
  assert.match(welcomeModelLine({ provider: '', id: '', demo: false }), /No model is configured/);
});

test('the page offers Undo while the host says the rewind can be undone, and drops it as soon as a prompt is sent', () => {
  const model = new ChatModel();
  const session: SessionView = {
    info: { id: 'ses_1', title: 't', usage: { input: 0, output: 0, cacheRead: 0, costTotal: 0 }, queue: [], paused: false },
    entries: [],
    undoableRewind: 'Rewound 1 turn and restored 1 file.',
  };
  model.applySnapshot({ session, live: [], cursor: 0 });
  assert.equal(model.undoableRewind, 'Rewound 1 turn and restored 1 file.');
  model.addPending('req-1', 'Create hello.txt again');
  assert.equal(model.undoableRewind, undefined);
  model.applySnapshot({ session: { ...session, undoableRewind: undefined }, live: [], cursor: 0 });
  assert.equal(model.undoableRewind, undefined);
});
