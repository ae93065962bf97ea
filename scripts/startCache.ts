// What `npm start` does once and then only when its inputs change: packaging Braid (braid.vsix
// from the sources) and installing that .vsix into the start profile. Each is remembered by a
// fingerprint of its inputs next to what it made, so a later start skips both.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** What goes into braid.vsix: the sources the bundles are built from, and the files it carries. */
const PACKAGE_INPUTS = ['src', 'media', 'scripts', 'esbuild.mjs', 'package.json', 'package-lock.json', '.vscodeignore', 'README.md', 'CHANGELOG.md', 'LICENSE'];

/** The path, size and modification time of every file under `entries` of `root`, hashed. */
function fingerprint(root: string, entries: readonly string[]): string {
  const hash = crypto.createHash('sha256');
  const visit = (rel: string) => {
    const stat = fs.statSync(path.join(root, rel), { throwIfNoEntry: false });
    if (!stat) return hash.update(`${rel}\0missing\n`);
    if (!stat.isDirectory()) return hash.update(`${rel}\0${stat.size}\0${stat.mtimeMs}\n`);
    for (const name of fs.readdirSync(path.join(root, rel)).sort()) visit(path.join(rel, name));
  };
  for (const entry of entries) visit(entry);
  return hash.digest('hex');
}

const readStamp = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined);

/** The package step of `root`: whether braid.vsix is built from the sources as they are, and how to record that it now is. */
export function packageStep(root: string): { current: boolean; record(): void } {
  const vsix = path.join(root, 'braid.vsix');
  const stamp = path.join(root, 'out', 'start', 'braid.vsix.inputs');
  const inputs = fingerprint(root, PACKAGE_INPUTS);
  return {
    current: fs.existsSync(vsix) && readStamp(stamp) === `${inputs}\n${fs.statSync(vsix).mtimeMs}`,
    record() {
      fs.mkdirSync(path.dirname(stamp), { recursive: true });
      fs.writeFileSync(stamp, `${inputs}\n${fs.statSync(vsix).mtimeMs}`);
    },
  };
}

/** The install step of `vsix` into a profile's `extensions` folder: whether that very file is installed there, and how to record it. */
export function installStep(extensions: string, vsix: string): { current: boolean; record(): void } {
  const stamp = path.join(extensions, '.braid-vsix-sha256');
  const digest = crypto.createHash('sha256').update(fs.readFileSync(vsix)).digest('hex');
  const installed = fs.existsSync(extensions) && fs.readdirSync(extensions).some((name) => name.startsWith('braid-dev.braid-'));
  return {
    current: installed && readStamp(stamp) === digest,
    record: () => fs.writeFileSync(stamp, digest),
  };
}
