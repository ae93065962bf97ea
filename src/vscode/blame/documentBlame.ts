// The authors of an open document's lines, kept per version of the document: a hover and each
// CodeLens request ask for them, and only a new version or a change of the index (a turn that
// ended, another window's session) makes blame read the logs again. No vscode import.
import type { LineAuthor } from '../../core/store/blame';

/** An open document as blame needs it: its key (URI), version, file and text. */
export interface BlamedDocument {
  readonly key: string;
  readonly version: number;
  readonly file: string;
  /** The folder of the window the file is in: its sessions are looked at first. */
  readonly folder: string;
  text(): string;
}

/** Blames a file as `text` says it is now: each line's author, or null. Throws what blameFile throws. */
export type BlameLines = (file: string, folder: string, text: string) => (LineAuthor | null)[];

export class DocumentBlame {
  private readonly kept = new Map<string, { version: number; authors: readonly (LineAuthor | null)[] }>();

  constructor(
    private readonly blame: BlameLines,
    private readonly failed: (file: string, err: unknown) => void,
  ) {}

  /** The author of each line of `doc` (none when blame failed: a file too large, gone from disk). */
  authors(doc: BlamedDocument): readonly (LineAuthor | null)[] {
    const kept = this.kept.get(doc.key);
    if (kept?.version === doc.version) return kept.authors;
    let authors: readonly (LineAuthor | null)[] = [];
    try {
      authors = this.blame(doc.file, doc.folder, doc.text());
    } catch (err) {
      this.failed(doc.file, err);
    }
    this.kept.set(doc.key, { version: doc.version, authors });
    return authors;
  }

  /** Forgets a closed document. */
  forget(key: string): void {
    this.kept.delete(key);
  }

  /** Forgets every document's authors: the index changed, so a turn may have written them. */
  clear(): void {
    this.kept.clear();
  }
}
