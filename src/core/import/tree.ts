import fs from 'node:fs';
import { valuesOfLine, type SourceLine } from './sourceLines';
import { openSource } from '../fs/sourceFile';

/** Where one record of a branching source lies in its file, and its place in the tree. */
export interface TreeNode {
  readonly id: string;
  /** The record it follows; null at a root. */
  readonly parent: string | null;
  readonly offset: number;
  readonly length: number;
  /** A record of the conversation (a message), not a note beside it. */
  readonly isMessage: boolean;
  /** What kind of message: a prompt, an answer (with `key`, its answer's id) or a tool's result. */
  readonly kind?: 'prompt' | 'answer' | 'result';
  readonly key?: string;
  /** The index of this node among those read, in file order. */
  readonly order: number;
}

/**
 * The id tree of a branching source (Claude Code's `parentUuid`, pi's `parentId`), kept as
 * offsets, not records: memory grows with the number of lines, never with their size.
 */
export class SourceTree {
  readonly nodes = new Map<string, TreeNode>();
  /** Ids whose parent the file does not hold (a trimmed or damaged file): their branch starts there. */
  readonly dangling: string[] = [];
  /** Answer keys, interned: the records of one answer share one string. */
  private readonly keys = new Map<string, string>();

  add(node: Omit<TreeNode, 'order'> & { order?: number; parent: string | null; key?: string }): void {
    if (this.nodes.has(node.id)) return; // a record written twice: the first one counts
    // A large file has a million records: one object each (the caller's), the parent's id and an
    // answer's key shared with the strings held already rather than copies of them.
    node.order = this.nodes.size;
    if (node.parent !== null) node.parent = this.nodes.get(node.parent)?.id ?? node.parent;
    if (node.key !== undefined) {
      const key = this.keys.get(node.key);
      if (key === undefined) this.keys.set(node.key, node.key);
      else node.key = key;
    }
    this.nodes.set(node.id, node as TreeNode);
  }

  /** The chain from the root down to `leaf`; `bridge` names a parent a root continues from (a compaction boundary's logical parent). */
  pathTo(leaf: string, bridge: (node: TreeNode) => string | null = () => null): TreeNode[] {
    const path: TreeNode[] = [];
    const seen = new Set<string>();
    for (let id: string | null = leaf; id !== null && !seen.has(id);) {
      seen.add(id);
      const node = this.nodes.get(id);
      if (!node) {
        this.dangling.push(id);
        break;
      }
      path.push(node);
      id = node.parent ?? bridge(node);
    }
    return path.reverse();
  }

  /**
   * The message nodes that end a branch: no message comes after them, through any notes between.
   * Newest last (file order).
   */
  leaves(include: (node: TreeNode) => boolean): TreeNode[] {
    const hasMessageChild = new Set<string>();
    for (const node of this.nodes.values()) {
      if (!node.isMessage || !include(node)) continue;
      const above = this.messageAbove(node);
      if (above) hasMessageChild.add(above);
    }
    return [...this.nodes.values()].filter((n) => n.isMessage && include(n) && !hasMessageChild.has(n.id));
  }

  private messageAbove(node: TreeNode): string | null {
    const seen = new Set<string>();
    for (let id = node.parent; id !== null && !seen.has(id);) {
      seen.add(id);
      const up = this.nodes.get(id);
      if (!up) return null;
      if (up.isMessage) return up.id;
      id = up.parent;
    }
    return null;
  }
}

/**
 * The records a first read of a branching source kept, by id, so that writing a branch reads no
 * byte again: all of them while the file is small; past `limit` bytes none (a large file's
 * branch is read again by offsets, and memory stays bounded by the tree).
 */
export class RecordCache {
  private values: Map<string, unknown> | null = new Map();
  private bytes = 0;

  constructor(private readonly limit = 8 << 20) {}

  keep(id: string, value: unknown, length: number): void {
    if (!this.values) return;
    this.bytes += length;
    if (this.bytes > this.limit) this.values = null;
    else if (!this.values.has(id)) this.values.set(id, value); // a record written twice: the first one counts, as in the tree
  }

  /** The records of `nodes` in the order given, when every one was kept; null otherwise. */
  recordsOf(nodes: readonly TreeNode[]): Array<{ node: TreeNode; value: unknown }> | null {
    const values = this.values;
    if (!values) return null;
    return nodes.flatMap((node) => (values.has(node.id) ? [{ node, value: values.get(node.id) }] : []));
  }
}

/** Reads the records of `nodes` back from a source file (in the order given): from `cache` when it kept them, else one positioned read each. */
export function* readNodes(file: string, root: string, nodes: readonly TreeNode[], cache?: RecordCache): Generator<{ node: TreeNode; value: unknown }> {
  const kept = cache?.recordsOf(nodes);
  if (kept) {
    yield* kept;
    return;
  }
  const { fd } = openSource(file, root);
  try {
    for (const node of nodes) {
      const buffer = Buffer.allocUnsafe(node.length);
      fs.readSync(fd, buffer, 0, node.length, node.offset);
      for (const value of valuesOfLine(buffer.toString('utf8').trim())) {
        const id = (value as { uuid?: unknown; id?: unknown }).uuid ?? (value as { id?: unknown }).id;
        if (id === node.id) yield { node, value };
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** A source line's value as an object, or undefined (a bad line, a JSON value that is no record). */
export function recordOf(line: SourceLine): Record<string, unknown> | undefined {
  if (!('value' in line)) return undefined;
  const v = line.value;
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}
