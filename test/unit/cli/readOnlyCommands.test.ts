import assert from 'node:assert/strict';
import { test } from 'node:test';
import { READ_COMMANDS } from '../../../src/cli/readCommands';
import { READ_ONLY_COMMANDS } from '../../../src/cli/readOnly';
import { ALL_COMMANDS } from '../../../src/cli/run';

// dist/cli.js sends the commands READ_ONLY_COMMANDS names to the read-only bundle, which runs
// READ_COMMANDS: the two lists must agree, and the full bundle runs each of them the same way.
test("the names dist/cli.js sends to the read-only bundle are exactly the commands that bundle runs, and the full bundle's own", () => {
  const table = [...Object.keys(READ_COMMANDS.plain), ...Object.keys(READ_COMMANDS.store)].sort();
  assert.deepEqual([...READ_ONLY_COMMANDS].sort(), table);
  for (const [name, run] of Object.entries(READ_COMMANDS.store)) assert.equal(ALL_COMMANDS.store[name], run, name);
  for (const [name, run] of Object.entries(READ_COMMANDS.plain)) assert.equal(ALL_COMMANDS.plain[name], run, name);
});
