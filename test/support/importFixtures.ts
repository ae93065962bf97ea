import fs from 'node:fs';
import path from 'node:path';
import { repoRoot, tempDir } from './store';

export const IMPORT_FIXTURES = path.join(repoRoot, 'test', 'fixtures', 'import');

/** A copy of the import fixtures whose sessions were recorded in `workspace` (a real folder, made when not given, with notes.md in it). */
export function importSources(inWorkspace?: string): { sources: string; workspace: string; cleanup: () => void } {
  const root = tempDir('braid-import-');
  const workspace = inWorkspace ?? path.join(root, 'workspace');
  fs.mkdirSync(workspace, { recursive: true });
  fs.writeFileSync(path.join(workspace, 'notes.md'), 'one\ntwo\n');
  const sources = path.join(root, 'sources');
  copyReplacing(IMPORT_FIXTURES, sources, workspace);
  return { sources, workspace, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

function copyReplacing(from: string, to: string, workspace: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) copyReplacing(src, dst, workspace);
    else {
      const bytes = fs.readFileSync(src);
      // Byte-exact except for the placeholder (the hostile files hold bytes that are not UTF-8).
      const marker = Buffer.from('__WORKSPACE__');
      const parts: Buffer[] = [];
      let at = 0;
      for (let i = bytes.indexOf(marker); i !== -1; i = bytes.indexOf(marker, at)) {
        parts.push(bytes.subarray(at, i), Buffer.from(JSON.stringify(workspace).slice(1, -1)));
        at = i + marker.length;
      }
      parts.push(bytes.subarray(at));
      fs.writeFileSync(dst, Buffer.concat(parts));
    }
  }
}
