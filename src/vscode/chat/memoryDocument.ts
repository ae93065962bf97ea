// Braid: Show Session Memory (/memory): the chat's session memory as an editable document of its
// own scheme (braid-memory:/<session id>/Session Memory.md). Saving it writes the text as the
// user's memory (a new memory record `by: user`); text that is not a memory fails the save with
// the line and the reason, and the memory stays as it was.
import * as vscode from 'vscode';
import { memoryEditHeading, memoryText, parseMemoryText } from '../../core/session/memory';
import { Disposable } from '../disposable';
import type { CurrentSession } from './currentSession';

/** The scheme of session memory documents. */
export const MEMORY_SCHEME = 'braid-memory';
const FILE_NAME = 'Session Memory.md';

/** The memory documents: read from and saved to the chat's current session. */
export class MemoryDocuments extends Disposable implements vscode.FileSystemProvider {
  private readonly changed = this._register(new vscode.EventEmitter<vscode.FileChangeEvent[]>());
  readonly onDidChangeFile = this.changed.event;

  constructor(private readonly current: CurrentSession) {
    super();
    this._register(vscode.workspace.registerFileSystemProvider(MEMORY_SCHEME, this, { isCaseSensitive: true }));
  }

  /** The document of a session's memory. */
  static uri(sessionId: string): vscode.Uri {
    return vscode.Uri.from({ scheme: MEMORY_SCHEME, path: `/${sessionId}/${FILE_NAME}` });
  }

  /** Opens the chat's session memory for reading and editing. */
  async open(): Promise<void> {
    const id = this.current.currentId;
    if (!id) throw new Error('Open a session in the Chat view first: its memory is shown here.');
    this.refresh(id);
    await vscode.window.showTextDocument(MemoryDocuments.uri(id), { preview: false });
  }

  /** The memory changed (an update, a compaction): open documents read it again. */
  refresh(sessionId: string): void {
    this.changed.fire([{ type: vscode.FileChangeType.Changed, uri: MemoryDocuments.uri(sessionId) }]);
  }

  stat(uri: vscode.Uri): vscode.FileStat {
    const record = this.current.memoryRecord;
    return { type: vscode.FileType.File, ctime: 0, mtime: this.sessionOf(uri) === this.current.currentId ? (record?.ts ?? 0) : 0, size: this.text(uri).length };
  }

  readFile(uri: vscode.Uri): Uint8Array {
    return Buffer.from(this.text(uri), 'utf8');
  }

  async writeFile(uri: vscode.Uri, content: Uint8Array): Promise<void> {
    if (this.sessionOf(uri) !== this.current.currentId)
      throw new Error('This memory is of a session no longer open in the Chat view; open it there, then edit its memory.');
    // A text that is not a memory throws here (which line, why): the save fails and nothing is written.
    const facts = parseMemoryText(Buffer.from(content).toString('utf8'));
    await this.current.setMemory(facts);
    this.refresh(this.sessionOf(uri));
  }

  watch(): vscode.Disposable {
    return new vscode.Disposable(() => undefined);
  }

  readDirectory(): [string, vscode.FileType][] {
    return [];
  }

  createDirectory(): void {
    throw vscode.FileSystemError.NoPermissions('A session memory has no folders.');
  }

  delete(): void {
    throw vscode.FileSystemError.NoPermissions('Edit the memory to remove facts; it cannot be deleted.');
  }

  rename(): void {
    throw vscode.FileSystemError.NoPermissions('A session memory cannot be renamed.');
  }

  private sessionOf(uri: vscode.Uri): string {
    return uri.path.split('/')[1] ?? '';
  }

  /** The document's text: how to edit it, then the facts. */
  private text(uri: vscode.Uri): string {
    const id = this.sessionOf(uri);
    if (id !== this.current.currentId) return `# The memory of session ${id} is shown while it is open in the Chat view.\n`;
    const facts = this.current.memoryRecord?.facts ?? [];
    return `${memoryEditHeading(this.current.sessionTitle ?? id)}${facts.length > 0 ? `${memoryText(facts)}\n` : ''}`;
  }
}
