import { errorMessage } from '../../errors';
import type { Logger } from '../../logger';
import type { SetupOrigin } from '../settingsFiles';
import type { SetupSources } from '../sources';
import { mcpServerEntries, type McpServerEntry } from './definitions';
import { launchOf } from './launch';
import type { CallOptions, McpConnection } from './sdkClient';
import { serverApproved } from './serverApproval';
import { readServerTools, type McpToolInfo } from './serverTools';

// The MCP servers of one window (or one CLI process): one connection per server, started when a
// session first needs tools (or a list asks), closed with the hub. A project's server starts only
// in a trusted workspace and only when the user approved its exact definition; the user's own
// servers need no approval.

/** Where a server stands. */
export type McpServerState = 'not started' | 'starting' | 'running' | 'failed' | 'untrusted' | 'unapproved' | 'invalid';

/** One server as `braid mcp list` and the views show it. */
export interface McpServerStatus {
  readonly name: string;
  readonly origin: SetupOrigin;
  readonly file: string;
  readonly state: McpServerState;
  /** Why it failed, is invalid, or stopped. */
  readonly error?: string;
  /** For a project's server: whether the user approved its current definition. */
  readonly approved?: boolean;
  /** Its usable tools, sorted by name (when it ran). */
  readonly tools: readonly McpToolInfo[];
  /** Tools the server offered that Braid left out, each with why. */
  readonly toolErrors: readonly string[];
}

export interface McpHubOptions {
  readonly sources: SetupSources;
  /** The user's environment: `${VAR}` in definitions is read from it, and a server's base environment. */
  readonly env: NodeJS.ProcessEnv;
  readonly logger: Logger;
  /** Braid's version, told to servers. */
  readonly version?: string;
  /** How long a server may take to start and list its tools (20 s when absent). */
  readonly startTimeoutMs?: number;
}

interface ServerSlot {
  readonly entry: McpServerEntry;
  state: McpServerState;
  error?: string;
  connection?: McpConnection;
  starting?: Promise<void>;
  tools: McpToolInfo[];
  toolErrors: string[];
}

/** The servers of one window or CLI process; `close()` ends them all. */
export class McpHub {
  private readonly slots = new Map<string, ServerSlot>();
  private closed = false;

  constructor(private readonly options: McpHubOptions) {
    for (const entry of mcpServerEntries(options.sources)) this.slots.set(entry.name, { entry, state: 'not started', tools: [], toolErrors: [] });
  }

  /** The setup's sources this hub was made from. */
  get sources(): SetupSources {
    return this.options.sources;
  }

  /** Every server of the setup with where it stands, sorted by name. */
  statuses(): McpServerStatus[] {
    return [...this.slots.values()].map((slot) => {
      const gate = this.gate(slot.entry);
      const state = gate ?? slot.state;
      return {
        name: slot.entry.name,
        origin: slot.entry.origin,
        file: slot.entry.file,
        state,
        ...(slot.entry.error ? { error: slot.entry.error } : slot.error && (state === 'failed' || state === 'not started') ? { error: slot.error } : {}),
        ...(slot.entry.origin === 'project' && slot.entry.definition ? { approved: this.isApproved(slot.entry) } : {}),
        tools: state === 'running' ? slot.tools : [],
        toolErrors: state === 'running' ? slot.toolErrors : [],
      };
    });
  }

  /**
   * Starts every server that may run and is not running yet (at once, each within the start
   * deadline). A server that fails stays failed for this hub (its status says why); one that
   * stopped by itself is started again.
   */
  async startAll(): Promise<void> {
    await Promise.all([...this.slots.values()].map((slot) => this.start(slot)));
  }

  /** The running servers and their tools, sorted by server name. */
  running(): Array<{ readonly server: string; readonly tools: readonly McpToolInfo[]; readonly callTimeoutMs: number }> {
    return [...this.slots.values()]
      .filter((s) => s.state === 'running' && this.gate(s.entry) === undefined)
      .map((s) => ({ server: s.entry.name, tools: s.tools, callTimeoutMs: s.entry.definition!.callTimeoutMs }));
  }

  /** Sends a request to a running server (started now if it may run); throws a sentence for the model and the user. */
  async request(
    server: string,
    method: string,
    params: Record<string, unknown> | undefined,
    options: Partial<CallOptions> = {},
  ): Promise<Record<string, unknown>> {
    const slot = this.slots.get(server);
    if (!slot) throw new Error(`there is no MCP server named "${server}"`);
    await this.start(slot);
    const gate = this.gate(slot.entry);
    if (gate) throw new Error(`the MCP server "${server}" may not run: ${this.gateReason(gate)}`);
    if (!slot.connection) throw new Error(`the MCP server "${server}" is not running${slot.error ? `: ${slot.error}` : ''}`);
    return slot.connection.request(method, params, {
      timeoutMs: options.timeoutMs ?? slot.entry.definition!.callTimeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  }

  /** Ends every server (and each program's process tree). The hub starts none after. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      [...this.slots.values()].map(async (slot) => {
        await slot.starting?.catch(() => undefined);
        const connection = slot.connection;
        slot.connection = undefined;
        slot.state = 'not started';
        await connection?.close();
      }),
    );
  }

  private start(slot: ServerSlot): Promise<void> {
    if (this.closed || slot.state === 'running' || slot.state === 'failed' || this.gate(slot.entry)) return Promise.resolve();
    slot.starting ??= this.connect(slot).finally(() => (slot.starting = undefined));
    return slot.starting;
  }

  private async connect(slot: ServerSlot): Promise<void> {
    const { entry } = slot;
    const timeoutMs = this.options.startTimeoutMs ?? 20_000;
    slot.state = 'starting';
    try {
      const launch = launchOf(entry.definition!, this.options.env, this.options.sources.workspaceDir, entry.origin === 'project');
      const { connectMcp } = await import('./sdkClient');
      const connection = await connectMcp(launch, { version: this.options.version ?? 'dev', timeoutMs });
      const { tools, errors } = await readServerTools(entry.name, connection, timeoutMs).catch(async (err: unknown) => {
        await connection.close();
        throw err;
      });
      if (this.closed) return void (await connection.close());
      Object.assign(slot, { connection, tools, toolErrors: errors, state: 'running', error: undefined });
      for (const e of errors) this.options.logger.warn(`MCP server ${entry.name}: ${e}`);
      connection.onClosed((reason) => {
        if (slot.connection !== connection) return;
        // Started again when a session next needs it; meanwhile its status says why it stopped.
        Object.assign(slot, { connection: undefined, state: 'not started', error: reason, tools: [], toolErrors: [] });
        this.options.logger.warn(`MCP server ${entry.name}: ${reason}`);
      });
    } catch (err) {
      Object.assign(slot, { state: 'failed', error: `it did not start: ${errorMessage(err)}`, tools: [], toolErrors: [] });
      this.options.logger.warn(`MCP server ${entry.name}: ${slot.error}`);
    }
  }

  /** Why a server may not run at all, if it may not. */
  private gate(entry: McpServerEntry): 'invalid' | 'untrusted' | 'unapproved' | undefined {
    if (entry.error || !entry.definition) return 'invalid';
    if (entry.origin !== 'project') return undefined;
    if (!this.options.sources.trusted) return 'untrusted';
    return this.isApproved(entry) ? undefined : 'unapproved';
  }

  private gateReason(gate: 'invalid' | 'untrusted' | 'unapproved'): string {
    if (gate === 'invalid') return 'its definition is not valid';
    if (gate === 'untrusted') return 'the workspace is not trusted';
    return 'the user has not approved its definition (braid mcp trust <name>, or Braid: Approve Project Setup… in VS Code)';
  }

  private isApproved(entry: McpServerEntry): boolean {
    return serverApproved(this.options.sources, entry);
  }
}
