import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../fs/atomic';
import { withFileLock } from '../fs/fileLock';
import { makeFolders } from '../fs/folders';
import { sha256Hex } from '../hash';
import { isObject } from './settingsFiles';
import { canonicalJson } from '../format/canonicalJson';

// What a project defines that runs programs (an MCP server, the hooks of its settings files) runs
// only after the user approved that exact definition for that folder. Approvals live in the
// user's configuration folder (`approvals.json`), shared by the CLI and VS Code: the repository
// cannot write them. A definition is approved by its hash, so a changed definition asks again.

/** A project's definition the user approved: `mcp:<server>` or `settings:<file>` in one folder. */
export interface ApprovalKey {
  /** The workspace folder (its real path when it has one). */
  readonly workspace: string;
  /** `mcp:<server name>`, or `settings:<file relative to the workspace>`. */
  readonly item: string;
}

interface ApprovalsFile {
  readonly version: 1;
  readonly projects: Record<string, Record<string, string>>;
}

/** The hash a definition is approved by: its JSON with keys in order, so formatting changes nothing. */
export function definitionHash(definition: unknown): string {
  return sha256Hex(canonicalJson(definition));
}

/** The user's approvals of project definitions, read fresh on every question (another process may have approved). */
export class ProjectApprovals {
  constructor(
    /** `approvals.json` in the user's configuration folder. */
    readonly file: string,
  ) {}

  /** True when the user approved exactly this definition (by its hash) for this folder and item. */
  isApproved(key: ApprovalKey, hash: string): boolean {
    return this.read().projects[workspaceKeyOf(key.workspace)]?.[key.item] === hash;
  }

  /** Records the approval of a definition (replacing an older one for the same item). */
  async approve(key: ApprovalKey, hash: string): Promise<void> {
    await this.change((projects) => {
      const workspace = workspaceKeyOf(key.workspace);
      projects[workspace] = { ...projects[workspace], [key.item]: hash };
    });
  }

  /** Forgets an approval; the definition asks again. */
  async revoke(key: ApprovalKey): Promise<void> {
    await this.change((projects) => {
      const workspace = workspaceKeyOf(key.workspace);
      const items = { ...projects[workspace] };
      delete items[key.item];
      projects[workspace] = items;
    });
  }

  private async change(edit: (projects: Record<string, Record<string, string>>) => void): Promise<void> {
    makeFolders(path.dirname(this.file));
    await withFileLock(`${this.file}.lock`, { staleMs: 30_000, timeoutMs: 10_000 }, () => {
      const projects = { ...this.read().projects };
      edit(projects);
      const next: ApprovalsFile = { version: 1, projects };
      writeFileAtomic(this.file, `${JSON.stringify(next, null, 2)}\n`);
    });
  }

  private read(): ApprovalsFile {
    let parsed: unknown;
    try {
      parsed = JSON.parse(fs.readFileSync(this.file, 'utf8'));
    } catch {
      return { version: 1, projects: {} }; // none yet, or unreadable: nothing is approved
    }
    if (!isObject(parsed) || !isObject(parsed.projects)) return { version: 1, projects: {} };
    const projects: Record<string, Record<string, string>> = {};
    for (const [workspace, items] of Object.entries(parsed.projects)) {
      if (!isObject(items)) continue;
      projects[workspace] = Object.fromEntries(Object.entries(items).filter((e): e is [string, string] => typeof e[1] === 'string'));
    }
    return { version: 1, projects };
  }
}

/** A folder's real path when it exists, so a link to it shares its approvals. */
function workspaceKeyOf(workspace: string): string {
  try {
    return fs.realpathSync(workspace);
  } catch {
    return path.resolve(workspace);
  }
}
