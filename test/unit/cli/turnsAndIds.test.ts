import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { helpTopics } from '../../../src/cli/help';
import { StoreLayout } from '../../../src/core/format/layout';
import { storeShortForms } from '../../../src/core/format/sessionShortIds';
import { braidIn } from '../../support/cli';
import { fauxAssistantMessage, fauxToolCall, sessionFixture } from '../../support/session';
import { addTurn, openStore, tempRoots, userMessage } from '../../support/store';

// What a user needs to reach a turn from the terminal: `show` numbers the turns and prints each
// prompt's id shortened, `rewind --turn N`, ids shortened like git's for every command, and
// help for each command.
const roots = tempRoots();
after(roots.cleanup);

/** The short form the CLI shows a session of the data folder `root` by. */
const shownIn = (root: string, id: string) => storeShortForms(new StoreLayout(root))(id);

/** The shortest beginning of `id` (after ses_, at least 4 characters) that no other of `ids` shares. */
function uniquePrefix(id: string, ids: readonly string[]): string {
  for (let n = 8; n <= id.length; n++) if (ids.filter((other) => other.startsWith(id.slice(0, n))).length === 1) return id.slice(0, n);
  return id;
}

test("show numbers the turns and prints each prompt's id shortened; rewind --turn N and --to <shortened id> go back to that prompt", async () => {
  const f = await sessionFixture({ 'edit.txt': 'one\ntwo\n' });
  const store = path.join(f.root, 'store');
  const cli = (...args: string[]) => braidIn(['--data-dir', store, ...args], { cwd: f.workspace });
  try {
    f.faux.setResponses([
      fauxAssistantMessage('turn one'),
      fauxAssistantMessage(fauxToolCall('read_file', { path: 'edit.txt' }, { id: 'r' }), { stopReason: 'toolUse' }),
      fauxAssistantMessage(fauxToolCall('edit_file', { path: 'edit.txt', old_text: 'two', new_text: 'TWO' }, { id: 'e' }), { stopReason: 'toolUse' }),
      fauxAssistantMessage('turn two'),
      fauxAssistantMessage('turn three'),
    ]);
    const session = await f.open();
    for (const prompt of ['first', 'change it', 'third']) {
      await session.submit(prompt);
      await session.waitForIdle();
    }
    await session.close();
    const prompts = f.store
      .history(session.id)
      .messages.filter((m) => m.message.role === 'user')
      .map((m) => m.id);
    assert.equal(prompts.length, 3);

    const shown = await cli('show', session.id.slice(0, 12));
    assert.equal(shown.code, 0, shown.err);
    const headings = [...shown.out.matchAll(/^turn (\d+) {2}prompt (\S+)$/gm)].map((m) => [Number(m[1]), m[2]!]);
    assert.deepEqual(
      headings.map(([turn]) => turn),
      [1, 2, 3],
    );
    headings.forEach(([, short], i) => {
      assert.match(short as string, /^[0-9a-f]{7,}$/);
      assert.ok(prompts[i]!.startsWith(`msg-user-v1-${short}`), `${short} begins ${prompts[i]}`);
    });
    assert.match(shown.out, /^turn 2 {2}prompt \S+\n> change it\n/m);
    assert.ok(shown.out.endsWith(`braid rewind ${shownIn(store, session.id)} --turn N (or --to <prompt id>)\n`), shown.out);
    const json = JSON.parse((await cli('show', session.id, '--json')).out) as { messages: Array<{ id: string; role: string }> };
    assert.deepEqual(
      json.messages.filter((m) => m.role === 'user').map((m) => m.id),
      prompts,
    );

    const byTurn = await cli('rewind', session.id, '--turn', '2', '--preview', '--json');
    assert.equal(byTurn.code, 0, byTurn.err);
    const byId = await cli('rewind', session.id, '--to', headings[1]![1] as string, '--preview', '--json');
    assert.equal(byId.out, byTurn.out);
    assert.deepEqual((({ toTurn, messageId, turnsDropped }) => ({ toTurn, messageId, turnsDropped }))(JSON.parse(byTurn.out)), {
      toTurn: 2,
      messageId: prompts[1],
      turnsDropped: 2,
    });

    const noTurn = await cli('rewind', session.id, '--turn', '9');
    assert.equal(noTurn.code, 1);
    const named = shownIn(store, session.id);
    assert.equal(noTurn.err, `braid: session ${named} has no turn 9; it has 3 turns (braid show ${named} numbers them)\n`);
    for (const args of [['--turn', '0'], ['--turn', 'two'], ['--turn', '2', '--to', prompts[1]!], []]) {
      const bad = await cli('rewind', session.id, ...args);
      assert.equal(bad.code, 2, `${args.join(' ')}: ${bad.err}`);
    }
    assert.match((await cli('rewind', session.id)).err, /--to <prompt id> or --turn N is required \(braid show <id> prints both\)/);
    assert.match((await cli('rewind', session.id, '--to', 'ffffffff')).err, /no prompt of [0-9A-Z]{6,} has an id that begins with "ffffffff"/);

    // A file changed by hand is skipped; the same command with --confirm-outside restores it, by turn too.
    fs.writeFileSync(path.join(f.workspace, 'edit.txt'), 'edited by hand\n');
    const skipped = await cli('rewind', session.id, '--turn', '2', '--files');
    assert.equal(skipped.code, 0, skipped.err);
    assert.match(skipped.out, /skipped edit.txt/);
    const confirmed = await cli('rewind', session.id, '--turn', '2', '--files', '--confirm-outside');
    assert.equal(confirmed.code, 0, confirmed.err);
    assert.match(confirmed.out, /already rewound; restored 1 file/);
    assert.equal(fs.readFileSync(path.join(f.workspace, 'edit.txt'), 'utf8'), 'one\ntwo\n');
    assert.deepEqual(
      [...(await cli('show', session.id)).out.matchAll(/^turn (\d+) /gm)].map((m) => m[1]),
      ['1'],
    );
  } finally {
    await f.cleanup();
  }
});

test('rewind --turn refuses the turn still running', async () => {
  const root = roots.root();
  const store = await openStore(root);
  const s = await store.create({ workspaceDir: '/projects/app' });
  const writer = await store.openWriter(s.id);
  await addTurn(writer, 'first prompt', 'first answer');
  await writer.beginTurn('p-running', { provider: 'test', id: 'test-model', thinking: 'off' });
  await writer.appendMessage(userMessage('the running prompt'));
  await store.close();
  const r = await braidIn(['--data-dir', root, 'rewind', s.id, '--turn', '2'], { cwd: '/projects/app' });
  assert.equal(r.code, 1);
  assert.equal(r.err, `braid: turn 2 of ${shownIn(root, s.id)} is still running; stop it before rewinding\n`);
  await writer.close();
});

test('every command that takes a session id takes a unique beginning of it, from any workspace, archived or in the trash', async () => {
  const root = roots.root();
  const store = await openStore(root);
  const ids: string[] = [];
  for (const dir of ['/projects/app', '/projects/app', '/projects/other', '/projects/other']) {
    const s = await store.create({ workspaceDir: dir });
    const w = await store.openWriter(s.id);
    await addTurn(w, `prompt in ${dir}`, 'answer');
    await w.close();
    ids.push(s.id);
  }
  await store.close();
  const cli = (...args: string[]) => braidIn(['--data-dir', root, ...args], { cwd: '/projects/app' });
  const [a, b, other, trashed] = ids as [string, string, string, string];
  const short = (id: string) => uniquePrefix(id, ids);

  assert.match((await cli('show', short(other))).out, /prompt in \/projects\/other/);
  assert.match((await cli('show', short(other).slice(4).toLowerCase())).out, /prompt in \/projects\/other/);
  const shown = (id: string) => shownIn(root, id);
  assert.equal((await cli('archive', short(a))).out, `archived ${shown(a)}\n`);
  assert.equal((await cli('restore', short(a).slice(4))).out, `restored ${shown(a)}\n`);
  assert.equal((await cli('rename', short(b), 'Second')).out, `renamed ${shown(b)} to "Second"\n`);
  assert.match((await cli('export', short(b))).out, /^# Second/);
  const forked = await cli('fork', short(b), '--turn', '1');
  assert.match(forked.out, /^ses_\w{26}\n$/);
  ids.push(forked.out.trim()); // later beginnings must be unique among it too
  assert.equal((await cli('delete', short(trashed))).code, 0);
  const gone = await cli('show', short(trashed));
  assert.equal(gone.code, 1);
  assert.match(gone.err, /was deleted: it is in the trash/);
  assert.equal((await cli('undelete', short(trashed))).out, `restored ${shown(trashed)} from the trash\n`);
  assert.equal((await cli('undo-rewind', short(a))).code, 1); // resolved: the session was never rewound
  assert.match((await cli('undo-rewind', short(a))).err, /was never rewound/);

  // A beginning several ids share (they were made the same second) lists them all.
  const shared = a.slice(0, 8);
  const sharing = ids.filter((id) => id.startsWith(shared));
  assert.ok(sharing.length >= 2, `ids made together share ${shared}`);
  const ambiguous = await cli('show', shared);
  assert.equal(ambiguous.code, 1);
  const lines = ambiguous.err.trimEnd().split('\n');
  assert.match(lines[0]!, new RegExp(`^braid: "${shared}" begins or ends \\d+ session ids; type more of the one you mean:$`));
  assert.ok(
    sharing.every((id) => lines.some((l) => l.startsWith(`  ${id} `))),
    ambiguous.err,
  );

  const none = await cli('show', 'ses_7ZZZZZ');
  assert.equal(none.code, 1);
  assert.equal(none.err, 'braid: no session has an id that begins or ends with "ses_7ZZZZZ" (braid list --all shows them)\n');
  assert.equal((await cli('show', '01')).code, 2);
  assert.match((await cli('show', 'not-an-id')).err, /"not-an-id" is not a session id/);
});

test('help: braid help lists every command; braid help <command>, <command> --help and -h print its usage; none touches a store', async () => {
  const home = roots.root();
  const env = { HOME: home };
  const general = await braidIn(['help'], { env });
  assert.equal(general.code, 0);
  for (const topic of helpTopics()) {
    assert.match(general.out, new RegExp(`^ {2}${topic}( |$)`, 'm'), `general help lists ${topic}`);
    for (const args of [
      ['help', topic],
      [topic, '--help'],
      [topic, '-h'],
    ]) {
      const r = await braidIn(args, { env });
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
      assert.ok(r.out.startsWith(`Usage: braid [--data-dir DIR] [--workspace DIR] [--verbose] ${topic}`), `${args.join(' ')}: ${r.out}`);
      assert.ok(r.out.split('\n').length >= 3, `${args.join(' ')} says more than its usage line`);
    }
  }
  assert.match((await braidIn(['fork', '--help'], { env })).out, /--turn N +keep turns 1 to N \(braid show numbers them\)/);
  assert.match((await braidIn(['rewind', 'ses_x', '--turn', '2', '-h'], { env })).out, /--turn N {12}the prompt that began turn N/);
  const unknown = await braidIn(['help', 'frobnicate'], { env });
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /there is no command "frobnicate"/);
  assert.deepEqual(fs.readdirSync(home), []);
});
