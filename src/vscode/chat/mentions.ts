import * as vscode from 'vscode';
import { errorMessage } from '../../core/errors';
import type { Attachment } from '../../core/format/attachment';
import { readIgnoredPaths, type IgnoredPaths } from '../../core/git/ignoredPaths';
import { readFileText, readGitDiff } from '../../core/session/attachmentReads';
import { WorkspaceFs } from '../../core/tools/workspaceFs';
import type { AttachmentRef, MentionItem } from '../../protocol/messages';
import { rankFiles, rankMatches, subsequenceGlob } from './mentionRank';
import type { McpHub } from '../../core/setup/mcp/hub';
import { McpResourceMentions } from './mcpResourceMentions';

/** Files VS Code's search returns for one query; ranked here, the best shown. */
const SEARCH_RESULTS = 300;
/** Files of the workspace kept in memory for the `@` list; a bigger workspace is searched query by query. */
const CACHED_FILES = 250_000;
/** Lines of the `@` list. */
const SHOWN = 30;
/** MCP resources the `@` list shows at most. */
const RESOURCES_SHOWN = 5;
/** Files a folder's listing names at most. */
const FOLDER_LISTING = 500;
/** How old the list of ignored paths may get before a query reads it again (in the background). */
const IGNORED_MAX_AGE_MS = 30_000;

const baseName = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** The first workspace folder: mentions name its files by paths relative to it. */
function primaryFolder(): vscode.WorkspaceFolder | undefined {
  return vscode.workspace.workspaceFolders?.[0];
}

/** `uri`'s path relative to the first workspace folder ('/' separated), or undefined outside it. */
function relativeToPrimary(uri: vscode.Uri): string | undefined {
  const folder = primaryFolder();
  if (!folder || uri.scheme !== folder.uri.scheme) return undefined;
  const root = folder.uri.path.endsWith('/') ? folder.uri.path : `${folder.uri.path}/`;
  return uri.path.startsWith(root) ? uri.path.slice(root.length) : undefined;
}

/**
 * The `@` list and what its items hold: files of the first workspace folder (a listing kept in
 * memory, or VS Code's file search with a subsequence glob in a huge workspace; ranked here), open editors, folders, the
 * MCP servers' resources, the problems list and, in a trusted workspace, the git diff.
 */
export class Mentions {
  private search: vscode.CancellationTokenSource | undefined;
  /** Every file of the first folder (files.exclude applied), while there are at most CACHED_FILES; kept up to date by a watcher. */
  private cache: Set<string> | undefined;
  /** The listing, read on the first query. */
  private loading: Promise<void> | undefined;
  private watcher: vscode.FileSystemWatcher | undefined;
  /** What `.gitignore` ignores in the first folder, read with git in a trusted workspace; undefined without. */
  private ignored: IgnoredPaths | undefined;
  private ignoredRead: { at: number; reading: Promise<void> } | undefined;
  private readonly resources: McpResourceMentions;

  constructor(mcp: () => McpHub) {
    this.resources = new McpResourceMentions(mcp);
  }

  dispose(): void {
    this.search?.cancel();
    this.watcher?.dispose();
  }

  /** The items matching `query`, best first; a newer query cancels the search of an older one. */
  async find(query: string): Promise<MentionItem[]> {
    this.search?.cancel();
    const search = (this.search = new vscode.CancellationTokenSource());
    const q = query.trim();
    const fixed: MentionItem[] = [{ kind: 'problems', label: 'Problems', detail: 'The problems list (errors and warnings)' }];
    if (vscode.workspace.isTrusted) fixed.push({ kind: 'gitDiff', label: 'Git diff', detail: 'Uncommitted changes against HEAD' });
    const editors = this.openEditors();
    const resourcesFound = this.resources.find(q, RESOURCES_SHOWN); // the servers list while the files are read
    // The first query, `@` alone among them, waits for the listing: it lists files too.
    const files = await this.candidates(q, search.token);
    if (search.token.isCancellationRequested) return [];
    const best = rankFiles(q, files, this.ignored, SEARCH_RESULTS);
    const folders = [...new Set(best.flatMap((f) => folderSteps(f)))].map((p): MentionItem => ({ kind: 'folder', label: baseName(p), path: p, detail: p }));
    const editorPaths = new Set(editors.map((e) => e.path));
    const fileItems = best.filter((f) => !editorPaths.has(f)).map((p): MentionItem => ({ kind: 'file', label: baseName(p), path: p, detail: p }));
    const ranked = (items: MentionItem[], limit: number) => rankMatches(q, items, (i) => i.path ?? i.label, limit);
    const editorItems = ranked(editors, 10);
    const resources = await resourcesFound;
    if (search.token.isCancellationRequested) return [];
    return [
      ...editorItems,
      ...fileItems.slice(0, SHOWN - editorItems.length - resources.length), // ranked already, ignored files the query asks for last
      ...resources,
      ...(q ? rankMatches(q, folders, (i) => baseName(i.path!), 5) : []),
      ...(q ? rankMatches(q, fixed, (i) => i.label, 2) : fixed),
    ].slice(0, SHOWN);
  }

  /** The chip for the active editor's selection (its file and lines), or undefined without one. */
  selection(editor: vscode.TextEditor | undefined): AttachmentRef | string {
    if (!editor || editor.selection.isEmpty) return 'Select some text in an editor first.';
    const path = relativeToPrimary(editor.document.uri);
    if (path === undefined) return 'Only a selection in a file of the first workspace folder can be added to the chat.';
    const { start, end } = editor.selection;
    const last = end.character === 0 && end.line > start.line ? end.line : end.line + 1;
    return { kind: 'selection', label: `${baseName(path)}:${start.line + 1}-${last}`, path, lines: [start.line + 1, last] };
  }

  /** Reads what the chips name, now; throws an error that says which one could not be read and why. */
  async resolve(refs: readonly AttachmentRef[]): Promise<Attachment[]> {
    const out: Attachment[] = [];
    for (const ref of refs) {
      if (ref.image) {
        out.push({ kind: 'image', label: ref.label, text: '', image: ref.image });
        continue;
      }
      try {
        out.push({ ...ref, ...(ref.lines ? { lines: [ref.lines[0], ref.lines[1]] as [number, number] } : {}), text: await this.read(ref) });
      } catch (err) {
        throw new Error(`The attachment ${ref.label} could not be read: ${errorMessage(err)}`, { cause: err });
      }
    }
    return out;
  }

  private async read(ref: AttachmentRef): Promise<string> {
    const folder = primaryFolder();
    switch (ref.kind) {
      case 'problems':
        return problemsText();
      case 'gitDiff': {
        if (!vscode.workspace.isTrusted) throw new Error('git runs only in a trusted workspace');
        if (!folder) throw new Error('no workspace folder is open');
        const diff = await readGitDiff(folder.uri.fsPath);
        if (diff === undefined) throw new Error('the workspace folder is not a git repository (or git is not installed)');
        return diff.trim() ? diff : '(no uncommitted changes)';
      }
      case 'mcpResource':
        return this.resources.read(ref);
      case 'folder':
        if (!folder) throw new Error('no workspace folder is open');
        return this.folderListing(folder, ref.path!);
      default: {
        if (!folder) throw new Error('no workspace folder is open');
        const ws = new WorkspaceFs([folder.uri.fsPath]);
        // An open document's text, unsaved edits included, is what the user sees.
        const open = vscode.workspace.textDocuments.find((d) => relativeToPrimary(d.uri) === ref.path);
        if (open && open.isDirty) {
          ws.resolve(ref.path!); // the confinement check the file read would make
          const text = open.getText();
          return ref.lines
            ? text
                .split('\n')
                .slice(ref.lines[0] - 1, ref.lines[1])
                .join('\n')
            : text;
        }
        return readFileText(ws, ref.path!, ref.lines);
      }
    }
  }

  private openEditors(): MentionItem[] {
    const seen = new Set<string>();
    const items: MentionItem[] = [];
    for (const tab of vscode.window.tabGroups.all.flatMap((g) => g.tabs)) {
      if (!(tab.input instanceof vscode.TabInputText)) continue;
      const path = relativeToPrimary(tab.input.uri);
      if (path === undefined || seen.has(path)) continue;
      seen.add(path);
      items.push({ kind: 'editor', label: baseName(path), path, detail: `Open editor · ${path}` });
    }
    return items;
  }

  /**
   * The files a query is ranked among: the first folder's listing, read on the first query and
   * then changed as files are created or deleted; in a folder too big to list, VS Code's search
   * for the query's subsequence glob.
   */
  private async candidates(query: string, token: vscode.CancellationToken): Promise<string[]> {
    const first = !this.loading;
    this.loading ??= this.load();
    const ignored = this.readIgnored();
    await this.loading;
    if (first) await ignored; // later queries use the list they have while it is read again
    if (this.cache) return [...this.cache];
    // A folder too big to keep listed: its top level for `@` alone.
    const glob = query ? subsequenceGlob(query) : '*';
    return glob ? this.files(glob, token) : [];
  }

  /** Reads the ignored paths again when the list is older than IGNORED_MAX_AGE_MS (git only in a trusted workspace). */
  private readIgnored(): Promise<void> {
    const folder = primaryFolder();
    if (!folder || folder.uri.scheme !== 'file' || !vscode.workspace.isTrusted) return Promise.resolve();
    if (this.ignoredRead && Date.now() - this.ignoredRead.at < IGNORED_MAX_AGE_MS) return this.ignoredRead.reading;
    const reading = readIgnoredPaths(folder.uri.fsPath).then(
      (ignored) => void (this.ignored = ignored),
      () => undefined, // no list: nothing is held back
    );
    this.ignoredRead = { at: Date.now(), reading };
    return reading;
  }

  private async load(): Promise<void> {
    const folder = primaryFolder();
    if (!folder) return;
    // Watching first, so no file created while the listing is read is missed.
    this.watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '**/*'), false, true, false);
    this.watcher.onDidCreate(async (uri) => {
      const path = relativeToPrimary(uri);
      const stat = await Promise.resolve(vscode.workspace.fs.stat(uri)).catch(() => undefined);
      if (path === undefined || !stat || !(stat.type & vscode.FileType.File)) return; // a folder comes with its files
      this.cache?.add(path);
      if (this.cache && this.cache.size > CACHED_FILES) this.cache = undefined;
    });
    this.watcher.onDidDelete((uri) => {
      const path = relativeToPrimary(uri);
      if (path === undefined || !this.cache) return;
      this.cache.delete(path);
      // A folder deleted takes its files with it.
      for (const p of this.cache) if (p.startsWith(`${path}/`)) this.cache.delete(p);
    });
    const uris = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, '**/*'), undefined, CACHED_FILES + 1);
    const paths = uris.map(relativeToPrimary).filter((p): p is string => p !== undefined);
    this.cache = paths.length > CACHED_FILES ? undefined : new Set(paths);
  }

  private async files(glob: string, token: vscode.CancellationToken): Promise<string[]> {
    const folder = primaryFolder();
    if (!folder) return [];
    const uris = await vscode.workspace.findFiles(new vscode.RelativePattern(folder, glob), undefined, SEARCH_RESULTS, token);
    return uris.map(relativeToPrimary).filter((p): p is string => p !== undefined);
  }

  private async folderListing(folder: vscode.WorkspaceFolder, path: string): Promise<string> {
    const base = vscode.Uri.joinPath(folder.uri, path);
    const uris = await vscode.workspace.findFiles(new vscode.RelativePattern(base, '**/*'), undefined, FOLDER_LISTING + 1);
    const paths = uris
      .map(relativeToPrimary)
      .filter((p): p is string => p !== undefined)
      .sort();
    const more = paths.length > FOLDER_LISTING ? `\n(more files than the ${FOLDER_LISTING} listed)` : '';
    return `Files in ${path}/:\n${paths.slice(0, FOLDER_LISTING).join('\n')}${more}`;
  }
}

/** The folders above a file ("a/b/c.ts" -> "a", "a/b"). */
function folderSteps(file: string): string[] {
  const steps = file.split('/').slice(0, -1);
  return steps.map((_, i) => steps.slice(0, i + 1).join('/'));
}

const SEVERITY = ['error', 'warning', 'info', 'hint'];

/** The problems list as lines: `path:line:column severity: message (source)`, errors first. */
function problemsText(): string {
  const lines: { severity: number; line: string }[] = [];
  for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
    const path = relativeToPrimary(uri) ?? uri.fsPath;
    for (const d of diagnostics) {
      const source = d.source ? ` (${d.source})` : '';
      lines.push({
        severity: d.severity,
        line: `${path}:${d.range.start.line + 1}:${d.range.start.character + 1} ${SEVERITY[d.severity]}: ${d.message}${source}`,
      });
    }
  }
  lines.sort((a, b) => a.severity - b.severity);
  return lines.length > 0 ? lines.map((l) => l.line).join('\n') : '(no problems)';
}
