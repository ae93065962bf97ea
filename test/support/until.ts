import assert from 'node:assert/strict';

/** Resolves once `check` holds, polling every 10 ms; fails naming `what` after five seconds. */
export async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
