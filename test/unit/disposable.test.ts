import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Disposable, disposeAll } from '../../src/vscode/disposable';

class Owner extends Disposable {
  own(item: { dispose(): void }): void {
    this._register(item);
  }
}

const item = (log: string[], name: string, fails = false) => ({
  dispose: () => {
    log.push(name);
    if (fails) throw new Error(`${name} failed`);
  },
});

test('dispose releases everything registered, in order, even after one fails, then throws that one error', () => {
  const log: string[] = [];
  const owner = new Owner();
  owner.own(item(log, 'a'));
  owner.own(item(log, 'b', true));
  owner.own(item(log, 'c'));
  assert.throws(() => owner.dispose(), /b failed/);
  assert.deepEqual(log, ['a', 'b', 'c']);
  owner.dispose();
  assert.deepEqual(log, ['a', 'b', 'c'], 'a second dispose releases nothing again');
});

test('several failures come back together, and what is registered after dispose is released at once', () => {
  const log: string[] = [];
  assert.throws(
    () => disposeAll([item(log, 'a', true), item(log, 'b'), item(log, 'c', true)]),
    (err: unknown) => {
      assert.ok(err instanceof AggregateError);
      assert.deepEqual(
        err.errors.map((e: Error) => e.message),
        ['a failed', 'c failed'],
      );
      return true;
    },
  );
  const owner = new Owner();
  owner.dispose();
  owner.own(item(log, 'late'));
  assert.deepEqual(log, ['a', 'b', 'c', 'late']);
});
