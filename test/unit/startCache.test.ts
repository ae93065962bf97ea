import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { dependenciesInstalled } from '../../scripts/dependencies.mjs';
import { installStep, packageStep } from '../../scripts/startCache';

// What a later `npm start` skips: packaging when no source changed, installing the same .vsix
// again, `npm ci` when node_modules is newer than the lockfile. Real files in a scratch repo.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'braid-start-cache-'));
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

function write(file: string, text: string, secondsAgo = 0): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  const when = new Date(Date.now() - secondsAgo * 1000);
  fs.utimesSync(file, when, when);
}

test('braid.vsix is packaged again only when a source changed, and installed again only when it is another file', () => {
  const root = path.join(scratch, 'repo');
  write(path.join(root, 'src', 'extension.ts'), 'export {};\n', 60);
  write(path.join(root, 'package.json'), '{}\n', 60);
  assert.equal(packageStep(root).current, false, 'nothing packaged yet');
  write(path.join(root, 'braid.vsix'), 'vsix one');
  packageStep(root).record();
  assert.equal(packageStep(root).current, true, 'a second start packages nothing');
  write(path.join(root, 'src', 'extension.ts'), 'export const changed = 1;\n');
  assert.equal(packageStep(root).current, false, 'a changed source is packaged again');
  packageStep(root).record();
  write(path.join(root, 'src', 'new.ts'), 'export {};\n');
  assert.equal(packageStep(root).current, false, 'so is a new one');

  const extensions = path.join(scratch, 'profile', 'extensions');
  const vsix = path.join(root, 'braid.vsix');
  assert.equal(installStep(extensions, vsix).current, false, 'not installed yet');
  fs.mkdirSync(path.join(extensions, 'braid-dev.braid-0.1.0'), { recursive: true });
  installStep(extensions, vsix).record();
  assert.equal(installStep(extensions, vsix).current, true, 'the same .vsix is not installed twice');
  write(vsix, 'vsix two');
  assert.equal(installStep(extensions, vsix).current, false, 'another one is');
  fs.rmSync(path.join(extensions, 'braid-dev.braid-0.1.0'), { recursive: true });
  write(vsix, 'vsix one');
  assert.equal(installStep(extensions, vsix).current, false, 'an extension removed from the profile is installed again');
});

test('npm ci runs when node_modules is missing or older than package.json or the lockfile', () => {
  const root = path.join(scratch, 'deps');
  write(path.join(root, 'package.json'), '{}\n', 60);
  write(path.join(root, 'package-lock.json'), '{}\n', 60);
  assert.equal(dependenciesInstalled(root), false);
  write(path.join(root, 'node_modules', '.package-lock.json'), '{}\n', 30);
  assert.equal(dependenciesInstalled(root), true);
  write(path.join(root, 'package-lock.json'), '{"changed":true}\n');
  assert.equal(dependenciesInstalled(root), false);
});
