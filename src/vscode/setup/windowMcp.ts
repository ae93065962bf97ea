import { McpHub } from '../../core/setup/mcp/hub';
import { mcpServerEntries } from '../../core/setup/mcp/definitions';
import { serverApproved } from '../../core/setup/mcp/serverApproval';
import { definitionHash } from '../../core/setup/projectApprovals';
import type { Logger } from '../../core/logger';
import { Disposable } from '../disposable';
import type { SetupWatcher } from './setupWatcher';

declare const BRAID_VERSION: string | undefined;

/** The window's MCP servers by the setup they are read from (one of each per window). */
const byWatcher = new WeakMap<SetupWatcher, WindowMcp>();

/**
 * The window's MCP servers: one hub, so one process per server per window, closed with the
 * window. When what would run changes (a definition, the workspace's trust, a project server's
 * approval given or revoked), the next turn finds a new hub and the old one's servers are ended.
 */
export class WindowMcp extends Disposable {
  private hub: McpHub | undefined;
  private key = '';

  constructor(
    private readonly setup: SetupWatcher,
    private readonly logger: Logger,
  ) {
    super();
    byWatcher.set(setup, this);
  }

  /** The window's MCP servers made for this setup, if any (Show Setup shows their status). */
  static of(setup: SetupWatcher): WindowMcp | undefined {
    return byWatcher.get(setup);
  }

  /** The hub for the setup as it is now (made, or made again, here). */
  current(): McpHub {
    const sources = this.setup.current();
    const entries = mcpServerEntries(sources);
    // A revoked approval ends the server's process; the hub also asks the approvals file before each start.
    const approved = entries.filter((e) => e.origin === 'project' && serverApproved(sources, e)).map((e) => e.name);
    const key = definitionHash({ trusted: sources.trusted, entries, approved });
    if (!this.hub || key !== this.key) {
      void this.hub?.close().catch((err: unknown) => this.logger.warn(`MCP servers did not all close: ${String(err)}`));
      this.hub = new McpHub({ sources, env: process.env, logger: this.logger, version: typeof BRAID_VERSION === 'string' ? BRAID_VERSION : 'dev' });
      this.key = key;
    }
    return this.hub;
  }

  override dispose(): void {
    super.dispose();
    byWatcher.delete(this.setup);
    void this.hub?.close().catch(() => undefined);
    this.hub = undefined;
  }
}
