import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpLaunch } from './launch';
import { descendantsOf, killAll, stopTreeOnWindows } from './processTree';

// The one module that loads the MCP SDK. It is imported with import() when a server first starts
// (esbuild keeps it a file of its own, dist/mcp-client.js): a command that starts no server loads
// none of the SDK. Results are read with the SDK's loose result schema and checked by the hub, so
// one tool with a broken schema cannot fail the whole list.

/** The largest message Braid reads from a server; past it the server is stopped (and the call fails saying so). */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
/** How much of a server program's stderr is kept, for the error that says why it stopped. */
const STDERR_TAIL_CHARS = 2000;

/** A request's deadline and Stop. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs: number;
}

/** A connected server. Results are plain JSON objects, checked by the caller. */
export interface McpConnection {
  request(method: string, params: Record<string, unknown> | undefined, options: CallOptions): Promise<Record<string, unknown>>;
  /** Called once when the connection ends by itself (the program exited, the stream broke), with why. */
  onClosed(listener: (reason: string) => void): void;
  /** Ends the connection and, for a program, its process tree. */
  close(): Promise<void>;
}

/** Connects to a server (starting its program); throws with a sentence a person can act on. */
export async function connectMcp(launch: McpLaunch, options: { readonly version: string; readonly timeoutMs: number }): Promise<McpConnection> {
  if (launch.transport === 'stdio') return connectStdio(launch, options);
  const url = new URL(launch.url!);
  const init = { headers: { ...launch.headers } };
  if (launch.transport === 'http') {
    try {
      return await connectWith(new StreamableHTTPClientTransport(url, { requestInit: init, fetch: cappedFetch }), options, () => '');
    } catch (err) {
      // Servers of the older protocol answer the Streamable HTTP handshake with an error: try SSE once.
      try {
        return await connectWith(new SSEClientTransport(url, { requestInit: init, fetch: cappedFetch }), options, () => '');
      } catch {
        throw err;
      }
    }
  }
  return connectWith(new SSEClientTransport(url, { requestInit: init, fetch: cappedFetch }), options, () => '');
}

async function connectStdio(launch: McpLaunch, options: { readonly version: string; readonly timeoutMs: number }): Promise<McpConnection> {
  const transport = new StdioClientTransport({
    command: launch.command!,
    args: [...launch.args],
    env: { ...launch.env },
    cwd: launch.cwd,
    stderr: 'pipe',
    maxBufferSize: MAX_MESSAGE_BYTES,
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
  });
  const tail = () => (stderr.trim() ? `; its last error output: ${stderr.trim().split('\n').slice(-5).join(' | ')}` : '');
  const connection = await connectWith(transport, options, tail);
  const close = connection.close;
  return {
    ...connection,
    async close() {
      // Servers started through npx or a shell leave children behind: they are found first, then stopped too.
      const pid = transport.pid;
      const children = pid ? await descendantsOf(pid) : [];
      if (pid && process.platform === 'win32') await stopTreeOnWindows(pid);
      await close();
      killAll(children);
    },
  };
}

async function connectWith(
  transport: Transport,
  options: { readonly version: string; readonly timeoutMs: number },
  tail: () => string,
): Promise<McpConnection> {
  const client = new Client({ name: 'braid', version: options.version }, { capabilities: {} });
  let lastError = '';
  let closedByUs = false;
  const listeners: Array<(reason: string) => void> = [];
  const tooLarge = `it sent a message larger than ${MAX_MESSAGE_BYTES / 1024 / 1024} MiB, so Braid stopped it`;
  client.onerror = (err) => {
    // The rest of an oversized message arrives as broken JSON: the size stays the reason given.
    if (lastError !== tooLarge) lastError = /ReadBuffer exceeded/.test(err.message) ? tooLarge : err.message;
  };
  client.onclose = () => {
    if (closedByUs) return;
    const reason = `the server stopped${lastError ? ` (${lastError})` : ''}${tail()}`;
    for (const l of listeners) l(reason);
  };
  try {
    await client.connect(transport, { timeout: options.timeoutMs });
  } catch (err) {
    closedByUs = true;
    await client.close().catch(() => undefined);
    throw new Error(`${(err as Error).message}${tail()}`, { cause: err });
  }
  return {
    async request(method, params, call) {
      try {
        const result = await client.request({ method, ...(params ? { params } : {}) }, ResultSchema, {
          timeout: call.timeoutMs,
          ...(call.signal ? { signal: call.signal } : {}),
        });
        return result as Record<string, unknown>;
      } catch (err) {
        if (call.signal?.aborted) throw new Error('stopped by the user', { cause: err });
        const message = (err as Error).message;
        if (/Connection closed/i.test(message))
          throw new Error(`the server stopped during the call${lastError ? ` (${lastError})` : ''}${tail()}`, { cause: err });
        if (/timed out|RequestTimeout|-32001/i.test(message))
          throw new Error(`no answer within ${Math.round(call.timeoutMs / 1000)} s (the call was cancelled)`, { cause: err });
        throw err;
      }
    },
    onClosed(listener) {
      listeners.push(listener);
    },
    async close() {
      closedByUs = true;
      await client.close().catch(() => undefined);
    },
  };
}

/**
 * fetch for the HTTP transports with every message bounded: a body (or one event of an event
 * stream) larger than MAX_MESSAGE_BYTES ends with an error instead of filling memory.
 */
const cappedFetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
  const response = await fetch(url, init);
  if (!response.body) return response;
  let sinceEventStart = 0;
  let lineFeed = false;
  const bounded = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        for (const byte of chunk) {
          if (byte === 10) {
            if (lineFeed) sinceEventStart = 0; // a blank line ends an event
            lineFeed = true;
          } else if (byte !== 13) lineFeed = false;
          sinceEventStart++;
        }
        if (sinceEventStart > MAX_MESSAGE_BYTES) controller.error(new Error(`the server sent a message larger than ${MAX_MESSAGE_BYTES / 1024 / 1024} MiB`));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(bounded, { status: response.status, statusText: response.statusText, headers: response.headers });
};
