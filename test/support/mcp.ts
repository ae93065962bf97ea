import fs from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../../src/core/logger';
import { McpHub } from '../../src/core/setup/mcp/hub';
import { readSetupSources, type SetupSources } from '../../src/core/setup/sources';
import { repoRoot, tempDir } from './store';

/** The reference servers of the MCP project (devDependencies) and Braid's misbehaving test server. */
export const EVERYTHING = path.join(repoRoot, 'node_modules', '.bin', 'mcp-server-everything');
export const FILESYSTEM = path.join(repoRoot, 'node_modules', '.bin', 'mcp-server-filesystem');
export const TEST_SERVER = path.join(repoRoot, 'test', 'support', 'mcpTestServer.mjs');

/** A stdio definition of the test server in Claude Code's shape. */
export function testServer(...args: string[]): Record<string, unknown> {
  return { command: process.execPath, args: [TEST_SERVER, ...args] };
}

/** A workspace, a user configuration folder and the environment that points at it. */
export interface McpFixture {
  readonly root: string;
  readonly workspace: string;
  readonly env: NodeJS.ProcessEnv;
  /** Writes Braid's user settings file with these servers. */
  userServers(servers: Record<string, unknown>): void;
  /** Writes a project file (`.mcp.json`: `mcpServers`; `.vscode/mcp.json`: `servers`). */
  projectServers(servers: Record<string, unknown>, file?: '.mcp.json' | '.vscode/mcp.json'): void;
  sources(trusted?: boolean): SetupSources;
  /** A hub over the current files; closed by cleanup. */
  hub(trusted?: boolean, startTimeoutMs?: number): McpHub;
  cleanup(): Promise<void>;
}

export function mcpFixture(extraEnv: NodeJS.ProcessEnv = {}): McpFixture {
  const root = tempDir('braid-mcp-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: root, XDG_CONFIG_HOME: path.join(root, 'config'), ...extraEnv };
  const hubs: McpHub[] = [];
  const write = (file: string, value: unknown) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(value, null, 2));
  };
  const fixture: McpFixture = {
    root,
    workspace,
    env,
    userServers: (servers) => write(path.join(root, 'config', 'braid', 'settings.json'), { mcpServers: servers }),
    projectServers: (servers, file = '.mcp.json') => write(path.join(workspace, file), file === '.mcp.json' ? { mcpServers: servers } : { servers }),
    sources: (trusted = true) => readSetupSources({ workspaceDir: workspace, trusted, env }),
    hub(trusted = true, startTimeoutMs) {
      const hub = new McpHub({ sources: fixture.sources(trusted), env, logger: silentLogger, ...(startTimeoutMs ? { startTimeoutMs } : {}) });
      hubs.push(hub);
      return hub;
    },
    async cleanup() {
      await Promise.all(hubs.map((h) => h.close()));
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  return fixture;
}
