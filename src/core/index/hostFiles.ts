import fs from 'node:fs';
import path from 'node:path';

/**
 * The parts of Emscripten's file system (sql.js's `FS`) that a mount of host files uses. sql.js
 * keeps its databases in that file system, in memory by default; a mount of this type makes a
 * folder of it the host's, so SQLite reads and writes an index file page by page, as a native
 * SQLite would, instead of Braid loading and saving the whole file.
 */
export interface EmscriptenFs {
  createNode(parent: FsNode | null, name: string, mode: number, rdev?: number): FsNode;
  hashRemoveNode(node: FsNode): void;
  isDir(mode: number): boolean;
  isLink(mode: number): boolean;
  mkdir(path: string, mode?: number): void;
  mount(type: MountType, opts: { root: string }, mountpoint: string): void;
  symlink(target: string, linkPath: string): void;
  ErrnoError: new (errno: number) => Error;
}

export interface FsNode {
  parent: FsNode;
  name: string;
  mode: number;
  mount: { opts: { root: string }; mountpoint: string };
  node_ops: object;
  stream_ops: object;
}

interface FsStream {
  node: FsNode;
  flags: number;
  position: number;
  hostFd?: number;
}

export interface MountType {
  mount(mount: { opts: { root: string } }): FsNode;
}

/** Emscripten's errno numbers (musl's, as its syscalls return them) for the host errors SQLite may meet. */
const ERRNO: Record<string, number> = {
  EPERM: 63,
  ENOENT: 44,
  EIO: 29,
  EBADF: 8,
  EACCES: 2,
  EEXIST: 20,
  ENOTDIR: 54,
  EISDIR: 31,
  EINVAL: 28,
  ENOSPC: 51,
  EROFS: 69,
  ENOTEMPTY: 55,
  ELOOP: 32,
  ENAMETOOLONG: 37,
  EDQUOT: 19,
};

/** O_CREAT, O_EXCL and O_TRUNC: Emscripten's open has dealt with them before the stream is opened. */
const HANDLED_OPEN_FLAGS = 0o100 | 0o200 | 0o1000;

/**
 * Called before each read and write of a host file; throws to refuse it. The index refuses writes
 * to a workspace's index file once this process no longer holds its lock (it was taken over while
 * this process was stopped), so that a resumed process cannot write into a database another
 * process now owns; and it tells waiters that a long read still holds the lock.
 */
export type AccessFence = (file: string, action: 'read' | 'write') => void;

/** Told of each host error the mount turns into an errno (SQLite keeps only its own code for it). */
export type HostErrorSink = (file: string, action: 'read' | 'write', err: NodeJS.ErrnoException) => void;

/**
 * A mount type whose files are the host's, under the folder `opts.root`: every call goes to
 * node:fs, and no file's node is cached, so a file another process created, grew or removed is
 * seen as it is now. Host errors become Emscripten errno errors, which SQLite reports as I/O errors.
 */
export function hostFilesMount(FS: EmscriptenFs, fence: AccessFence, hostError: HostErrorSink): MountType {
  const hostPath = (node: FsNode): string => {
    const names: string[] = [];
    for (let n = node; n.parent !== n; n = n.parent) names.push(n.name);
    return path.join(node.mount.opts.root, ...names.reverse());
  };
  const child = (parent: FsNode, name: string) => path.join(hostPath(parent), name);
  /** The host file an operation's first argument (a node or a stream, with a name for some) is about. */
  const fileOf = (args: unknown[]): string => {
    const [first, second] = args as [FsNode | FsStream, unknown];
    if ('node' in first) return hostPath(first.node);
    return typeof second === 'string' ? child(first, second) : hostPath(first);
  };
  const guarded =
    <A extends unknown[], R>(action: 'read' | 'write', op: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return op(...args);
      } catch (err) {
        if ((err as Error).name === 'ErrnoError') throw err;
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT') hostError(fileOf(args), action, err as NodeJS.ErrnoException); // a missing file is an answer, not a failure
        throw new FS.ErrnoError((code ? ERRNO[code] : undefined) ?? ERRNO.EIO!);
      }
    };

  const nodeOps = {
    getattr: guarded('read', (node: FsNode) => {
      const s = fs.lstatSync(hostPath(node));
      return {
        dev: s.dev,
        ino: s.ino,
        mode: s.mode,
        nlink: s.nlink,
        uid: s.uid,
        gid: s.gid,
        rdev: s.rdev,
        size: s.size,
        atime: s.atime,
        mtime: s.mtime,
        ctime: s.ctime,
        blksize: s.blksize,
        blocks: s.blocks,
      };
    }),
    setattr: guarded('write', (node: FsNode, attr: { size?: number; mode?: number }) => {
      const file = hostPath(node);
      if (attr.size !== undefined) {
        fence(file, 'write');
        fs.truncateSync(file, attr.size);
      }
      if (attr.mode !== undefined) fs.chmodSync(file, attr.mode & 0o7777);
    }),
    lookup: guarded('read', (parent: FsNode, name: string) => nodeFor(parent, name, fs.lstatSync(child(parent, name)).mode)),
    mknod: guarded('write', (parent: FsNode, name: string, mode: number) => {
      const file = child(parent, name);
      fence(file, 'write');
      if (FS.isDir(mode)) fs.mkdirSync(file, { mode: mode & 0o777 });
      else fs.closeSync(fs.openSync(file, 'wx', mode & 0o777));
      return nodeFor(parent, name, mode);
    }),
    rename: guarded('write', (node: FsNode, newParent: FsNode, newName: string) => {
      const to = child(newParent, newName);
      fence(to, 'write');
      fs.renameSync(hostPath(node), to);
    }),
    unlink: guarded('write', (parent: FsNode, name: string) => {
      const file = child(parent, name);
      fence(file, 'write');
      fs.unlinkSync(file);
    }),
    rmdir: guarded('write', (parent: FsNode, name: string) => fs.rmdirSync(child(parent, name))),
    readdir: guarded('read', (node: FsNode) => ['.', '..', ...fs.readdirSync(hostPath(node))]),
    readlink: guarded('read', (node: FsNode) => {
      const target = fs.readlinkSync(hostPath(node));
      // An absolute target names a host path: inside Emscripten's tree it lies under the mount point.
      return path.isAbsolute(target) ? path.join(node.mount.mountpoint, path.relative(node.mount.opts.root, target)) : target;
    }),
  };

  const streamOps = {
    open: guarded('read', (stream: FsStream) => {
      stream.hostFd = fs.openSync(hostPath(stream.node), stream.flags & ~HANDLED_OPEN_FLAGS);
    }),
    close: guarded('read', (stream: FsStream) => {
      if (stream.hostFd !== undefined) fs.closeSync(stream.hostFd);
      stream.hostFd = undefined;
    }),
    read: guarded('read', (stream: FsStream, buffer: Uint8Array, offset: number, length: number, position: number) => {
      fence(hostPath(stream.node), 'read');
      return fs.readSync(fdOf(stream), buffer, offset, length, position);
    }),
    write: guarded('write', (stream: FsStream, buffer: Uint8Array, offset: number, length: number, position: number) => {
      fence(hostPath(stream.node), 'write');
      return fs.writeSync(fdOf(stream), buffer, offset, length, position);
    }),
    llseek: guarded('read', (stream: FsStream, offset: number, whence: number) => {
      const base = whence === 1 ? stream.position : whence === 2 ? fs.fstatSync(fdOf(stream)).size : 0;
      if (base + offset < 0) throw new FS.ErrnoError(ERRNO.EINVAL!);
      return base + offset;
    }),
    fsync: guarded('write', (stream: FsStream) => {
      fs.fsyncSync(fdOf(stream));
      return 0;
    }),
  };

  const fdOf = (stream: FsStream): number => {
    if (stream.hostFd === undefined) throw new FS.ErrnoError(ERRNO.EBADF!);
    return stream.hostFd;
  };

  /**
   * A node for a host file or folder. A file's is left out of Emscripten's name cache, so that
   * every lookup asks the host again (another process creates, replaces and removes index files
   * and journals); a folder's is kept (every operation still names the host path, so a folder
   * removed meanwhile fails there), which spares an lstat of each folder of a path at every open.
   */
  const nodeFor = (parent: FsNode | null, name: string, mode: number): FsNode => {
    const node = FS.createNode(parent, name, mode);
    node.node_ops = nodeOps;
    node.stream_ops = streamOps;
    if (parent && !FS.isDir(mode)) FS.hashRemoveNode(node);
    return node;
  };

  return {
    mount: (mount) => nodeFor(null, '/', fs.statSync(mount.opts.root).mode),
  };
}
