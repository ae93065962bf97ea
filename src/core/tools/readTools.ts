import fs from 'node:fs';
import { Type } from '@mariozechner/pi-ai';
import type { AgentTool } from '@mariozechner/pi-agent-core';
import { formatBytes, openForRead } from './confinedFile';
import { capText, LIMITS, textResult, type ToolContext } from './context';
import { hashOpenFile } from './seenFiles';
import { readLineRange } from './textLines';
import { runToolJob, type JobResult } from './worker/runJob';
import { ToolError } from './workspaceFs';

/** Files up to this size get an exact count of the lines after the range read. */
const COUNT_LINES_UP_TO = 8 * 1024 * 1024;

/** `read_file`: text with line numbers, read by range; binary and special files say so. */
export function readFileTool(ctx: ToolContext): AgentTool {
  return {
    name: 'read_file',
    label: 'Read file',
    description: 'Read a text file of the workspace. Returns numbered lines. Use offset (1-based line) and limit (lines) for big files.',
    parameters: Type.Object({
      path: Type.String({ description: 'File path, relative to the workspace folder' }),
      offset: Type.Optional(Type.Integer({ minimum: 1, description: 'First line to read (1-based)' })),
      limit: Type.Optional(Type.Integer({ minimum: 1, description: 'How many lines to read' })),
    }),
    async execute(_id, raw: unknown) {
      const params = raw as { path: string; offset?: number; limit?: number };
      const file = ctx.workspace.resolve(params.path);
      const { fd, stat } = openForRead(ctx.workspace, file, params.path);
      try {
        const head = Buffer.alloc(Math.min(8192, stat.size));
        fs.readSync(fd, head, 0, head.length, 0);
        if (head.includes(0)) return textResult(`${params.path} is a binary file (${formatBytes(stat.size)}); it cannot be shown as text.`, { binary: true });
        const start = (params.offset ?? 1) - 1;
        const count = Math.min(params.limit ?? LIMITS.readLines, LIMITS.readLines);
        const range = readLineRange(fd, stat.size, start, count, LIMITS.lineChars, COUNT_LINES_UP_TO);
        const shown = range.lines.map((line, i) => `${String(start + i + 1).padStart(6)}\t${line}`);
        const next = start + range.lines.length + 1;
        const more =
          range.more === undefined
            ? `\n[the file goes on (${formatBytes(stat.size)} in all); read on with offset=${next}]`
            : range.more > 0
              ? `\n[${range.more} more lines; read on with offset=${next}]`
              : '';
        const links =
          stat.nlink > 1
            ? `\n[${params.path} is a hard link: ${stat.nlink} names share this file, possibly outside the workspace; a write replaces this name only]`
            : '';
        // The version read, for read before write: only a file small enough to be edited is hashed.
        const seen = stat.size <= LIMITS.editFileBytes ? { seen: { path: ctx.workspace.display(file), sha256: hashOpenFile(fd, stat.size) } } : {};
        return textResult(capText(shown.join('\n') + more) + links, {
          lines: range.more === undefined ? undefined : start + range.lines.length + range.more,
          hardLinks: stat.nlink,
          ...seen,
        });
      } finally {
        fs.closeSync(fd);
      }
    },
  };
}

/** `list_dir`: entries with a trailing `/` for folders. */
export function listDirTool(ctx: ToolContext): AgentTool {
  return {
    name: 'list_dir',
    label: 'List folder',
    description: 'List the entries of a workspace folder; folders end with /.',
    parameters: Type.Object({ path: Type.String({ description: 'Folder path, relative to the workspace folder ("." for the top)' }) }),
    async execute(_id, raw: unknown) {
      const params = raw as { path: string };
      const dir = ctx.workspace.resolve(params.path);
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        throw new ToolError(code === 'ENOTDIR' ? `${params.path} is a file; use read_file` : `${params.path} does not exist`);
      }
      const names = entries.map((e) => (e.isDirectory() ? `${e.name}/` : e.name)).sort();
      const shown = names.slice(0, LIMITS.listEntries);
      const more = names.length > shown.length ? `\n[${names.length - shown.length} more entries]` : '';
      return textResult(shown.length ? shown.join('\n') + more : '(empty folder)', { count: names.length });
    },
  };
}

/** The note a search adds when its deadline stopped it. */
function deadlineNote(result: JobResult, what: string): string {
  return result.timedOut ? `\n[stopped after ${LIMITS.searchTimeoutMs / 1000} s: ${what}; what was found until then is above]` : '';
}

/** `glob`: files matching a pattern, respecting .gitignore; runs in a worker with a deadline. */
export function globTool(ctx: ToolContext): AgentTool {
  return {
    name: 'glob',
    label: 'Find files',
    description: `Find files whose path matches a glob pattern (for example src/**/*.ts). Files ignored by .gitignore are skipped. Stops after ${LIMITS.searchTimeoutMs / 1000} s.`,
    parameters: Type.Object({
      pattern: Type.String({ description: 'Glob pattern, relative to path' }),
      path: Type.Optional(Type.String({ description: 'Folder to search in (default: the workspace folder)' })),
    }),
    async execute(_id, raw: unknown, signal) {
      const params = raw as { pattern: string; path?: string };
      const start = ctx.workspace.resolve(params.path ?? '.');
      const result = await runToolJob(
        { kind: 'glob', start, pattern: params.pattern, limit: LIMITS.globResults },
        { timeoutMs: LIMITS.searchTimeoutMs, ...(signal ? { signal } : {}) },
      );
      const more = result.truncated ? `\n[more than ${LIMITS.globResults} files; narrow the pattern]` : '';
      const late = deadlineNote(result, "the folder is very large or a pattern (yours or a .gitignore's) is too slow; narrow the path");
      return textResult((result.items.length ? result.items.join('\n') + more : 'No files match.') + late, {
        count: result.items.length,
        timedOut: result.timedOut,
      });
    },
  };
}

/** `grep`: lines matching a regular expression, respecting .gitignore; runs in a worker with a deadline. */
export function grepTool(ctx: ToolContext): AgentTool {
  return {
    name: 'grep',
    label: 'Search text',
    description: `Search file contents with a regular expression (JavaScript syntax). Returns path:line: text. Files ignored by .gitignore are skipped. Stops after ${LIMITS.searchTimeoutMs / 1000} s.`,
    parameters: Type.Object({
      pattern: Type.String({ description: 'Regular expression' }),
      path: Type.Optional(Type.String({ description: 'Folder or file to search (default: the workspace folder)' })),
      include: Type.Optional(Type.String({ description: 'Only files matching this glob, for example *.ts' })),
    }),
    async execute(_id, raw: unknown, signal) {
      const params = raw as { pattern: string; path?: string; include?: string };
      const target = ctx.workspace.resolve(params.path ?? '.');
      const result = await runToolJob(
        {
          kind: 'grep',
          roots: ctx.workspace.roots,
          forbidden: ctx.workspace.forbidden,
          target,
          pattern: params.pattern,
          ...(params.include ? { include: params.include } : {}),
          maxFileBytes: LIMITS.grepFileBytes,
          maxMatches: LIMITS.grepMatches,
          maxChars: LIMITS.outputChars,
        },
        { timeoutMs: LIMITS.searchTimeoutMs, ...(signal ? { signal } : {}) },
      );
      const capped = result.truncated ? `\n[stopped after ${result.items.length} matches; narrow the search]` : '';
      const late = deadlineNote(
        result,
        'the pattern may backtrack without end on this text (nested repetition such as (a+)+), or the folder is very large; simplify the pattern or narrow the path',
      );
      return textResult((result.items.length ? result.items.join('\n') + capped : 'No matches.') + late, {
        count: result.items.length,
        timedOut: result.timedOut,
      });
    },
  };
}
