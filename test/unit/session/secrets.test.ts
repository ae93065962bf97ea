import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Logger } from '../../../src/core/logger';
import { resolveModel } from '../../../src/core/model/modelSettings';
import { ScriptedModelServer, type RecordedRequest, type ScriptedReply } from '../../support/modelServer';
import { sessionFixture } from '../../support/session';

// A provider (or proxy) that quotes the Authorization header it received in its error body:
// every place Braid writes or shows text must take the key out, for every agent.
const KEY = `sk-braid-canary-${process.pid}-subagent`;

/** How the scripted provider answers: the subagent's requests fail quoting the key; or every request does; or plain text. */
let mode: 'subagent-fails' | 'all-fail' | 'text' = 'subagent-fails';

function reply(request: RecordedRequest): ScriptedReply {
  const echo: ScriptedReply = { kind: 'httpError', status: 401, message: `Incorrect API key provided: ${request.headers.authorization}. Check your key.` };
  const messages = request.body.messages ?? [];
  if (mode === 'all-fail') return echo;
  if (mode === 'text') return { kind: 'text', chunks: ['Plain answer with enough words to be worth summarizing later on.'] };
  if (JSON.stringify(messages[0]).includes('You are a subagent of Braid')) return echo;
  if (messages.some((m) => m.role === 'tool')) return { kind: 'text', chunks: ['The subagent could not run.'] };
  return { kind: 'toolCalls', calls: [{ id: 'task1', name: 'task', arguments: '{"description":"Look around","prompt":"List the files."}' }] };
}

/** Every file under `dir`. */
function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

test('a key a provider echoes inside a subagent reaches no log, state, logger line, event or error the session gives out', async () => {
  const server = new ScriptedModelServer(reply);
  const baseUrl = await server.start();
  const f = await sessionFixture({ 'a.txt': 'apples\n' });
  const lines: string[] = [];
  const logger: Logger = { trace: (m) => lines.push(m), info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m) };
  const events: string[] = [];
  try {
    const session = await f.open({
      model: () => ({ model: resolveModel({ provider: 'openai-compatible', model: 'scripted-model', baseUrl, demo: false }), thinking: 'off' }),
      apiKey: () => KEY,
      logger,
      compaction: { threshold: 0.99, keepTokens: 10 },
    });
    session.onEvent((e) => events.push(JSON.stringify(e)));
    await session.submit('Delegate a look around');
    await session.waitForIdle();
    const subagents = f.store.get(session.id).agents.filter((a) => a.id !== 'main');
    assert.equal(subagents.length, 1, 'the subagent ran');
    assert.ok(
      server.requests.some((r) => r.headers.authorization === `Bearer ${KEY}`),
      'the key was sent',
    );
    const toolEnd = events.map((e) => JSON.parse(e) as { type: string; isError?: boolean; text?: string }).find((e) => e.type === 'tool-end');
    assert.equal(toolEnd?.isError, true);
    assert.match(toolEnd!.text!, /Incorrect API key provided: Bearer \[API key removed\]/);

    // A turn that fails, a side question and a compaction that fail, all quoting the key.
    mode = 'text';
    await session.submit('One more turn so there is something to compact');
    await session.waitForIdle();
    mode = 'all-fail';
    await session.submit('This turn fails');
    await session.waitForIdle();
    await assert.rejects(session.ask('btw?'), (err: Error) => !`${err.message}${err.stack}`.includes(KEY) && /API key removed/.test(err.message));
    await assert.rejects(session.compact(), (err: Error) => !`${err.message}${err.stack}`.includes(KEY) && /API key removed/.test(err.message));
    await session.close();

    const leaks = filesUnder(f.root)
      .filter((file) => fs.readFileSync(file).includes(KEY))
      .map((file) => path.relative(f.root, file));
    assert.deepEqual(leaks, [], 'files holding the key');
    assert.deepEqual(
      events.filter((e) => e.includes(KEY)),
      [],
      'events holding the key',
    );
    assert.deepEqual(
      lines.filter((l) => l.includes(KEY)),
      [],
      'logger lines holding the key',
    );
  } finally {
    mode = 'subagent-fails';
    await f.cleanup();
    await server.close();
  }
});
