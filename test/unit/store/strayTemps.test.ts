import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { replaceLog } from '../../../src/core/share/pull';
import { runDoctor } from '../../../src/core/store/doctor';
import { addTurn, openStore, tempRoots } from '../../support/store';

// A process killed while it replaces a file leaves its temp file beside it. Every such temp is
// named `.<name>.tmp-<pid>-<n>`, and the doctor removes those whose process is gone: a log a pull
// or a sync was replacing, a blame memo being written.

const { root, cleanup } = tempRoots();
after(cleanup);

test("the temp files of a killed log replacement and a killed blame memo write are the doctor's to sweep", async () => {
  const store = await openStore(root());
  try {
    const s = await store.create({ workspaceDir: '/ws' });
    const w = await store.openWriter(s.id);
    await addTurn(w, 'a prompt', 'an answer');
    await w.close();
    const log = store.layout.agentLog(store.locate(s.id));
    const before = fs.readFileSync(log);
    replaceLog(log, before.length - 5, [before.subarray(before.length - 5)]);
    assert.deepEqual(fs.readFileSync(log), before, 'the log is replaced by its own bytes');
    assert.deepEqual(
      fs.readdirSync(path.dirname(log)).filter((n) => n !== 'wire.jsonl'),
      [],
      'no temp file left',
    );

    const gone = spawnSync(process.execPath, ['-e', '']).pid!; // a process that has ended
    const strays = [
      path.join(path.dirname(log), `.wire.jsonl.tmp-${gone}-1`),
      path.join(store.layout.blameMemoDir, `.0123abcd.json.tmp-${gone}-1700000000000`),
    ];
    for (const file of strays) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, 'half written');
    }
    const report = await runDoctor(store, { fix: true });
    const found = report.findings.filter((f) => f.message.startsWith('stray temp file'));
    assert.equal(found.length, 2, JSON.stringify(report.findings));
    for (const file of strays) assert.equal(fs.existsSync(file), false, `${file} removed`);
    assert.deepEqual(fs.readFileSync(log), before);
  } finally {
    await store.close();
  }
});
