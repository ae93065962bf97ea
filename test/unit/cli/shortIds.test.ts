import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { sessionShortForms, SHORT_ID_LENGTH } from '../../../src/core/format/sessionShortIds';
import { newSessionId } from '../../../src/core/ids';
import { braidIn } from '../../support/cli';
import { addTurn, openStore, tempRoots } from '../../support/store';

// Sessions are shown by a short form that is short in practice: ids begin with their time, so
// sessions made together share most of their beginning; the form is the end of the id.
const roots = tempRoots();
after(roots.cleanup);

test('the short form is the end of the id: six characters for sessions made in the same millisecond or minutes apart', () => {
  const now = Date.now();
  const siblings = Array.from({ length: 50 }, () => newSessionId(now)); // one millisecond: counted up
  const apart = [0, 3, 7].map((minutes) => newSessionId(now + minutes * 60_000));
  const ids = [...siblings, ...apart];
  const forms = sessionShortForms(ids);
  assert.ok(siblings[0]!.slice(0, 20) === siblings[49]!.slice(0, 20), 'siblings share most of their beginning');
  for (const id of ids) {
    const form = forms.get(id)!;
    assert.equal(form.length, SHORT_ID_LENGTH, `${id} is shown by ${form}`);
    assert.ok(id.endsWith(form));
  }
  assert.equal(new Set(ids.map((id) => forms.get(id))).size, ids.length, 'every form names one session');
});

test('a form grows only as far as another id shares its end, or begins with it', () => {
  const body = (s: string) => `ses_${s.padStart(26, '0')}`;
  const a = body('01JAAAAAAAAAAAAAAAAXYZ1234');
  const b = body('01JBBBBBBBBBBBBBBBBQYZ1234'); // shares its last 6 characters with a
  const c = body('01JCCCCCCCCCCCCCCCCCC4321Z');
  const d = `ses_${'C4321Z'}${'0'.repeat(20)}`; // begins with c's six-character end
  const forms = sessionShortForms([a, b, c, d]);
  assert.equal(forms.get(a), 'XYZ1234', 'one longer than the end it shares with b');
  assert.equal(forms.get(b), 'QYZ1234');
  assert.equal(forms.get(c), 'CC4321Z', 'one longer than the beginning of d');
});

test('each form is the shortest end, of at least six characters, that no other id ends or begins with (random ids that collide often)', () => {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const shortest = (body: string, others: string[]): number => {
    let length = SHORT_ID_LENGTH;
    while (length < body.length && others.some((o) => o.endsWith(body.slice(-length)) || o.startsWith(body.slice(-length)))) length++;
    return length;
  };
  for (let round = 0; round < 40; round++) {
    // Few letters over 5 to 9 characters: many ids share their last six characters, or begin with
    // them; a few letters in lower case (the same as upper) or not of a ULID (I, U).
    const letter = () => 'AABBAbIU'[Math.floor(next() * 8)]!;
    const ids = [...new Set(Array.from({ length: 30 }, () => `ses_${Array.from({ length: 5 + Math.floor(next() * 5) }, letter).join('')}`))];
    const forms = sessionShortForms(ids);
    for (const id of ids) {
      const body = id.slice(4).toUpperCase();
      const length = shortest(
        body,
        ids.filter((o) => o !== id).map((o) => o.slice(4).toUpperCase()),
      );
      assert.equal(forms.get(id), length >= body.length ? id : body.slice(-length), `${id} among ${ids.join(' ')}`);
    }
    const stranger = `ses_Z${ids[0]!.slice(4)}`; // ends as the first id does, and is not among them
    assert.equal(forms.get(stranger), undefined);
    assert.equal(forms.has(stranger), false);
  }
});

test('braid list shows each session by its short form, and every command takes it back, in either case', async () => {
  const root = roots.root();
  const store = await openStore(root);
  const ids: string[] = [];
  for (let i = 0; i < 12; i++) {
    const s = await store.create({ workspaceDir: '/projects/app' });
    const w = await store.openWriter(s.id);
    await addTurn(w, `prompt ${i}`, 'answer');
    await w.close();
    ids.push(s.id);
  }
  await store.close();
  const cli = (...args: string[]) => braidIn(['--data-dir', root, ...args], { cwd: '/projects/app' });
  const listed = await cli('list');
  assert.equal(listed.code, 0, listed.err);
  const shown = listed.out
    .trimEnd()
    .split('\n')
    .map((line) => line.split(' ')[0]!);
  assert.equal(shown.length, ids.length);
  for (const form of shown) {
    assert.equal(form.length, SHORT_ID_LENGTH, `${form}: six characters, not ${ids[0]!.length}`);
    const id = ids.find((i) => i.endsWith(form))!;
    assert.ok(id, `${form} ends a session id`);
    const show = await cli('show', form.toLowerCase());
    assert.equal(show.code, 0, show.err);
    assert.ok(show.out.includes(`[${form}: ${id}]`), show.out);
  }
  const json = JSON.parse((await cli('list', '--json')).out) as Array<{ id: string; shortId: string }>;
  assert.deepEqual(
    json.map((r) => r.id.endsWith(r.shortId)),
    Array(ids.length).fill(true),
  );
  const archived = await cli('archive', shown[0]!);
  assert.equal(archived.out, `archived ${shown[0]}\n`);
});
