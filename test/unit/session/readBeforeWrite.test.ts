// Read before write: a session changes an existing file only when its conversation holds the
// bytes on disk now (read by read_file, or written by the session). A new file needs no read. What
// was seen comes from the conversation, so a reopened session, a fork and a rewind see what their
// history saw.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { forkSession } from '../../../src/core/store/fork';
import type { MessageRecord } from '../../../src/core/wire/records';
import { fauxAssistantMessage, fauxToolCall, sessionFixture, type SessionFixture } from '../../support/session';

/** The text of each tool result in the log, by call id. */
function results(f: SessionFixture, id: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of f.records(id)) {
    const m = (r as MessageRecord).message;
    if (r.t === 'message' && m.role === 'toolResult') out.set(m.toolCallId, JSON.stringify(m.content));
  }
  return out;
}

const call = (name: string, args: Record<string, unknown>, id: string) => fauxAssistantMessage(fauxToolCall(name, args, { id }), { stopReason: 'toolUse' });
const edit = (id: string, oldText = 'old', newText = 'new') => call('edit_file', { path: 'notes.md', old_text: oldText, new_text: newText }, id);

test('an edit or overwrite of a file the session never read is refused, telling the model to read it; a new file is written', async () => {
  const f = await sessionFixture({ 'notes.md': 'old\n' });
  try {
    f.faux.setResponses([
      edit('e1'),
      call('write_file', { path: 'notes.md', content: 'replaced\n' }, 'w1'),
      call('write_file', { path: 'fresh.md', content: 'made\n' }, 'w2'),
      fauxAssistantMessage('I should read first.'),
    ]);
    const session = await f.open();
    await session.submit('change notes');
    await session.waitForIdle();
    const said = results(f, session.id);
    assert.match(said.get('e1')!, /notes\.md has not been read in this session; read it with read_file first/);
    assert.match(said.get('w1')!, /has not been read in this session/);
    assert.match(said.get('w2')!, /Created fresh\.md/);
    assert.equal(fs.readFileSync(path.join(f.workspace, 'notes.md'), 'utf8'), 'old\n');
    assert.equal(f.approvals.length, 1, 'only the new file asked: a refused change never reaches the user');
  } finally {
    await f.cleanup();
  }
});

test('after read_file the edit goes through, and the session may edit its own write again without reading', async () => {
  const f = await sessionFixture({ 'notes.md': 'old\n' });
  try {
    f.faux.setResponses([call('read_file', { path: 'notes.md' }, 'r1'), edit('e1'), edit('e2', 'new', 'newer'), fauxAssistantMessage('Done.')]);
    const session = await f.open();
    await session.submit('change notes');
    await session.waitForIdle();
    const said = results(f, session.id);
    assert.match(said.get('e1')!, /Edited notes\.md/);
    assert.match(said.get('e2')!, /Edited notes\.md/);
    assert.equal(fs.readFileSync(path.join(f.workspace, 'notes.md'), 'utf8'), 'newer\n');
  } finally {
    await f.cleanup();
  }
});

test('a file changed on disk since the read is refused until read again; the reopened session remembers its reads', async () => {
  const f = await sessionFixture({ 'notes.md': 'old\n' });
  try {
    f.faux.setResponses([call('read_file', { path: 'notes.md' }, 'r1'), fauxAssistantMessage('Read it.')]);
    const first = await f.open();
    await first.submit('read notes');
    await first.waitForIdle();
    await first.close();
    // Someone else changes the file; then the same bytes come back.
    fs.writeFileSync(path.join(f.workspace, 'notes.md'), 'old and more\n');
    f.faux.setResponses([edit('e1'), call('read_file', { path: 'notes.md' }, 'r2'), edit('e2', 'more', 'less'), fauxAssistantMessage('Done.')]);
    const session = await f.open({}, first.id);
    await session.submit('change notes');
    await session.waitForIdle();
    const said = results(f, session.id);
    assert.match(said.get('e1')!, /notes\.md changed on disk since this session last read it/);
    assert.match(said.get('e2')!, /Edited notes\.md/);
    assert.equal(fs.readFileSync(path.join(f.workspace, 'notes.md'), 'utf8'), 'old and less\n');
  } finally {
    await f.cleanup();
  }
});

test('a fork carries the reads of its turns and not those after', async () => {
  const f = await sessionFixture({ 'a.md': 'alpha\n', 'b.md': 'beta\n' });
  try {
    f.faux.setResponses([
      call('read_file', { path: 'a.md' }, 'r1'),
      fauxAssistantMessage('Read a.'),
      call('read_file', { path: 'b.md' }, 'r2'),
      fauxAssistantMessage('Read b.'),
    ]);
    const source = await f.open();
    await source.submit('read a');
    await source.waitForIdle();
    await source.submit('read b');
    await source.waitForIdle();
    await source.close();
    const fork = await forkSession(f.store, source.id, { turn: 1 });
    f.faux.setResponses([
      call('edit_file', { path: 'a.md', old_text: 'alpha', new_text: 'ALPHA' }, 'e1'),
      call('edit_file', { path: 'b.md', old_text: 'beta', new_text: 'BETA' }, 'e2'),
      fauxAssistantMessage('Done.'),
    ]);
    const forked = await f.open({}, fork.id);
    await forked.submit('edit both');
    await forked.waitForIdle();
    const said = results(f, fork.id);
    assert.match(said.get('e1')!, /Edited a\.md/);
    assert.match(said.get('e2')!, /b\.md has not been read in this session/);
  } finally {
    await f.cleanup();
  }
});
