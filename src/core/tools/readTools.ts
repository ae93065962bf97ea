import fs from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { Type } from '@mariozechner/pi-ai';
import type { AgentTool } from '@mariozechner/pi-agent-core';
import { capText, LIMITS, textResult, type ToolContext } from './context';
import { walkFiles } from './walk';
import { ToolError } from './workspaceFs';

function isBinary(data: Buffer): boolean {
  return data.subarray(0, 8192).includes(0);
}

/** `read_file`: text with line numbers; binary files say so. */
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
      let stat: fs.Stats;
      try {
        stat = fs.statSync(file);
      } catch {
        throw new ToolError(`${params.path} does not exist`);
      }
      if (stat.isDirectory()) throw new ToolError(`${params.path} is a folder; use list_dir`);
      const data = fs.readFileSync(file);
      if (isBinary(data)) return textResult(`${params.path} is a binary file (${data.length} bytes); it cannot be shown as text.`, { binary: true });
      const lines = data.toString('utf8').split('\n');
      const start = (params.offset ?? 1) - 1;
      const count = Math.min(params.limit ?? LIMITS.readLines, LIMITS.readLines);
      const shown = lines.slice(start, start + count).map((line, i) => {
        const text = line.length > LIMITS.lineChars ? `${line.slice(0, LIMITS.lineChars)} [line cut]` : line;
        return `${String(start + i + 1).padStart(6)}\t${text}`;
      });
      const more = start + count < lines.length ? `\n[${lines.length - start - count} more lines; read on with offset=${start + count + 1}]` : '';
      return textResult(capText(shown.join('\n') + more), { lines: lines.length });
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

/** `glob`: files matching a pattern, respecting .gitignore. */
export function globTool(ctx: ToolContext): AgentTool {
  return {
    name: 'glob',
    label: 'Find files',
    description: 'Find files whose path matches a glob pattern (for example src/**/*.ts). Files ignored by .gitignore are skipped.',
    parameters: Type.Object({
      pattern: Type.String({ description: 'Glob pattern, relative to path' }),
      path: Type.Optional(Type.String({ description: 'Folder to search in (default: the workspace folder)' })),
    }),
    async execute(_id, raw: unknown, signal) {
      const params = raw as { pattern: string; path?: string };
      const start = ctx.workspace.resolve(params.path ?? '.');
      const isMatch = picomatch(params.pattern, { dot: true });
      const found: string[] = [];
      for (const rel of walkFiles(start, start)) {
        if (signal?.aborted) throw new ToolError('cancelled');
        if (isMatch(rel)) found.push(rel);
        if (found.length > LIMITS.globResults) break;
      }
      const more = found.length > LIMITS.globResults ? `\n[more than ${LIMITS.globResults} files; narrow the pattern]` : '';
      return textResult(found.length ? found.slice(0, LIMITS.globResults).join('\n') + more : 'No files match.', { count: found.length });
    },
  };
}

/** `grep`: lines matching a regular expression, respecting .gitignore. */
export function grepTool(ctx: ToolContext): AgentTool {
  return {
    name: 'grep',
    label: 'Search text',
    description: 'Search file contents with a regular expression (JavaScript syntax). Returns path:line: text. Files ignored by .gitignore are skipped.',
    parameters: Type.Object({
      pattern: Type.String({ description: 'Regular expression' }),
      path: Type.Optional(Type.String({ description: 'Folder or file to search (default: the workspace folder)' })),
      include: Type.Optional(Type.String({ description: 'Only files matching this glob, for example *.ts' })),
    }),
    async execute(_id, raw: unknown, signal) {
      const params = raw as { pattern: string; path?: string; include?: string };
      let regex: RegExp;
      try {
        regex = new RegExp(params.pattern);
      } catch (err) {
        throw new ToolError(`invalid regular expression: ${(err as Error).message}`);
      }
      const target = ctx.workspace.resolve(params.path ?? '.');
      const include = params.include ? picomatch(params.include, { dot: true, basename: !params.include.includes('/') }) : undefined;
      const isFile = fs.existsSync(target) && fs.statSync(target).isFile();
      const files = isFile ? [path.basename(target)] : walkFiles(target, target);
      const base = isFile ? path.dirname(target) : target;
      const matches: string[] = [];
      let chars = 0;
      outer: for (const rel of files) {
        if (signal?.aborted) throw new ToolError('cancelled');
        if (include && !include(rel)) continue;
        const full = path.join(base, rel);
        let data: Buffer;
        try {
          if (fs.statSync(full).size > LIMITS.grepFileBytes) continue;
          data = fs.readFileSync(full);
        } catch {
          continue;
        }
        if (isBinary(data)) continue;
        const lines = data.toString('utf8').split('\n');
        for (let i = 0; i < lines.length; i++) {
          if (!regex.test(lines[i]!)) continue;
          const line = `${ctx.workspace.display(full)}:${i + 1}: ${lines[i]!.slice(0, 300)}`;
          matches.push(line);
          chars += line.length;
          if (matches.length >= LIMITS.grepMatches || chars > LIMITS.outputChars) break outer;
        }
      }
      const capped = matches.length >= LIMITS.grepMatches || chars > LIMITS.outputChars ? `\n[stopped after ${matches.length} matches; narrow the search]` : '';
      return textResult(matches.length ? matches.join('\n') + capped : 'No matches.', { count: matches.length });
    },
  };
}
