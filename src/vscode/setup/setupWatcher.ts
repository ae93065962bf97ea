import * as vscode from 'vscode';
import type { Logger } from '../../core/logger';
import { readSetupSources, type SetupSources } from '../../core/setup/sources';
import { userConfigDir } from '../../core/setup/settingsFiles';
import { Disposable } from '../disposable';
import { affectsSetupSettings, readVscodeSetup } from '../settings';

/** The workspace's files the setup comes from (docs/setup.md): a change to one reads the setup again. */
export const PROJECT_SETUP_GLOBS = [
  '.mcp.json',
  '.vscode/mcp.json',
  '.claude/settings*.json',
  '.braid/settings.json',
  '.claude/skills/**',
  '.claude/commands/**',
  '.github/prompts/**',
  '.github/skills/**',
  '.braid/skills/**',
] as const;

/** The user's configuration folder's files the setup comes from (approvals too: `braid mcp trust` in a terminal). */
const USER_SETUP_GLOBS = ['settings.json', 'approvals.json', 'skills/**', 'commands/**'] as const;

/** Changes come in bursts (a checkout, a save of several files): one reading after they settle. */
const SETTLE_MS = 150;

/**
 * The window's setup, read when first asked and again when it may have changed: the user's
 * `braid.mcpServers`, `braid.hooks` or `braid.permissions`, a project or user setup file, the
 * workspace's folders, or trust granted. Those who start servers or run hooks listen to `onDidChange`.
 */
export class SetupWatcher extends Disposable {
  private sources: SetupSources | undefined;
  private readonly changed = this._register(new vscode.EventEmitter<SetupSources>());
  /** Fires with the sources read again after a change. */
  readonly onDidChange = this.changed.event;
  private watchers: vscode.Disposable[] = [];
  private settle: NodeJS.Timeout | undefined;

  constructor(private readonly logger: Logger) {
    super();
    this._register(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (affectsSetupSettings(event)) this.changedBy('settings');
      }),
    );
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.changedBy('trust granted')));
    this._register(
      vscode.workspace.onDidChangeWorkspaceFolders(() => {
        this.watch();
        this.changedBy('workspace folders');
      }),
    );
    this._register({
      dispose: () => {
        clearTimeout(this.settle);
        for (const w of this.watchers.splice(0)) w.dispose();
      },
    });
    this.watch();
  }

  /** The main workspace folder; undefined when the window has none. */
  get workspaceDir(): string | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  /** The sources as last read (read now the first time); throws when no folder is open. */
  current(): SetupSources {
    const workspaceDir = this.workspaceDir;
    if (!workspaceDir) throw new Error('Open a folder first: the setup is read from a workspace folder and your settings.');
    if (this.sources?.workspaceDir !== workspaceDir) this.sources = this.read(workspaceDir);
    return this.sources;
  }

  private read(workspaceDir: string): SetupSources {
    return readSetupSources({ workspaceDir, trusted: vscode.workspace.isTrusted, vscode: readVscodeSetup() });
  }

  /** Reads the setup again soon (as a watched file's change does): after Braid itself changed what it reads, such as an approval. */
  readAgain(why: string): void {
    this.changedBy(why);
  }

  private changedBy(why: string): void {
    clearTimeout(this.settle);
    this.settle = setTimeout(() => {
      const workspaceDir = this.workspaceDir;
      this.sources = workspaceDir ? this.read(workspaceDir) : undefined;
      this.logger.info(`setup read again (${why})`);
      if (this.sources) this.changed.fire(this.sources);
    }, SETTLE_MS);
  }

  /** One watcher per setup file pattern, in the main folder and the user's configuration folder. */
  private watch(): void {
    for (const w of this.watchers.splice(0)) w.dispose();
    const folder = vscode.workspace.workspaceFolders?.[0];
    const patterns = [
      ...(folder ? PROJECT_SETUP_GLOBS.map((glob) => new vscode.RelativePattern(folder, glob)) : []),
      ...USER_SETUP_GLOBS.map((glob) => new vscode.RelativePattern(vscode.Uri.file(userConfigDir()), glob)),
    ];
    for (const pattern of patterns) {
      const watcher = vscode.workspace.createFileSystemWatcher(pattern);
      const onChange = (uri: vscode.Uri) => this.changedBy(`${uri.fsPath} changed`);
      watcher.onDidCreate(onChange);
      watcher.onDidChange(onChange);
      watcher.onDidDelete(onChange);
      this.watchers.push(watcher);
    }
  }
}
