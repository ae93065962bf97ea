import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { redactLine, type RedactionContext } from '../../../src/core/share/redact';
import { ALPHANUMERIC, drawn, sampleTokens } from '../../support/secretSamples';

// Random records with secrets and paths planted at random places (in texts, inside words, in
// keys, in tool output): what is sent never holds a planted secret or the absolute path of the
// workspace or the home folder, is JSON of the same record type with the same numbers, booleans
// and nulls in the same order, and redacting it again changes nothing.

const HOME = '/home/prop';
const FOLDER = '/home/prop/work/ws';
const SECRETS = [0, 1, 2].map((i) => `${i}${drawn(`known-${i}`, ALPHANUMERIC, 20 + i * 7)}`);
const ctx: RedactionContext = { folders: [FOLDER, '/srv/other'], home: HOME, secrets: SECRETS };
const TOKENS = sampleTokens('property').map((t) => t.token);

const segment = fc.stringMatching(/^[a-z][a-z0-9._-]{0,7}$/);
const path = fc
  .tuple(fc.constantFrom(FOLDER, HOME, `file://${FOLDER}`, `file://${HOME}`), fc.array(segment, { maxLength: 3 }))
  .map(([base, segments]) => [base, ...segments].join('/'));

/** Something that must not leave as it is: a known key, a token, a path under home. */
const planted = fc.oneof(fc.constantFrom(...SECRETS), fc.constantFrom(...TOKENS), path);

/** A text, maybe with something planted between spaces, or a known key inside a word. */
const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.tuple(fc.string({ maxLength: 12 }), planted, fc.string({ maxLength: 12 })).map(([a, p, b]) => `${a} ${p} ${b}`),
  fc.tuple(fc.stringMatching(/^[a-z]{0,6}$/), fc.constantFrom(...SECRETS), fc.stringMatching(/^[a-z]{0,6}$/)).map(([a, s, b]) => a + s + b),
);

const number = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));

const { value } = fc.letrec<{ value: unknown; object: Record<string, unknown> }>((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, text, number, fc.boolean(), fc.constant(null), fc.array(tie('value'), { maxLength: 4 }), tie('object')),
  // Keys numbered first, so two keys never become one when the planted part is rewritten.
  object: fc
    .array(fc.tuple(fc.option(planted, { nil: undefined }), tie('value')), { maxLength: 4 })
    .map((entries) => Object.fromEntries(entries.map(([p, v], i) => [p === undefined ? `k${i}` : `k${i} ${p}`, v]))),
}));

const record = fc.oneof(
  fc.tuple(fc.constantFrom('agent', 'custom_kind', 'tool'), value).map(([t, body]) => ({ v: 1, ts: 5, t, body, workspaceDir: FOLDER })),
  fc.tuple(text, value).map(([said, details]) => ({
    v: 1,
    ts: 6,
    t: 'message',
    turn: 1,
    id: 'msg_p',
    message: { role: 'toolResult', toolCallId: 'call_p', toolName: 'bash', content: [{ type: 'text', text: said }], details, isError: false, timestamp: 1 },
  })),
  fc.tuple(text, value).map(([said, args]) => ({
    v: 1,
    ts: 7,
    t: 'message',
    turn: 1,
    id: 'msg_q',
    message: {
      role: 'assistant',
      content: [
        { type: 'text', text: said },
        { type: 'toolCall', id: 'call_q', name: 'bash', arguments: { args } },
      ],
      timestamp: 2,
    },
  })),
);

/** The numbers, booleans and nulls of a value, in document order. */
function scalars(v: unknown): unknown[] {
  if (Array.isArray(v)) return v.flatMap(scalars);
  if (typeof v === 'object' && v !== null) return Object.values(v).flatMap(scalars);
  return typeof v === 'string' ? [] : [v];
}

test('no planted secret or absolute path leaves; the line stays JSON of its type, its scalars kept; redacting again changes nothing', () => {
  fc.assert(
    fc.property(record, (r) => {
      const input = JSON.stringify(r);
      const { line } = redactLine(input, ctx);
      assert.ok(line !== null);
      for (const secret of [...SECRETS, ...TOKENS]) assert.ok(!line.includes(secret), `${secret.slice(0, 8)}… left in ${line}`);
      assert.ok(!line.includes(HOME), `${HOME} left in ${line}`);
      const out = JSON.parse(line) as { t: string };
      assert.equal(out.t, r.t);
      assert.deepEqual(scalars(out), scalars(JSON.parse(input)));
      assert.deepEqual(redactLine(line, ctx), { line, redactions: [] });
    }),
    { numRuns: 1500 },
  );
});
