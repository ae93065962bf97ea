import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { after, test } from 'node:test';
import { EVERYTHING, mcpFixture } from '../../support/mcp';

// The reference server over Streamable HTTP and over the older SSE transport, on a loopback port.
const children: ChildProcess[] = [];
const fixtures: Array<ReturnType<typeof mcpFixture>> = [];
after(async () => {
  for (const f of fixtures) await f.cleanup();
  for (const c of children) c.kill('SIGKILL');
});

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts server-everything in a transport mode and resolves once it listens. */
async function everything(mode: 'streamableHttp' | 'sse'): Promise<number> {
  const port = await freePort();
  const child = spawn(EVERYTHING, [mode], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    let said = '';
    child.stderr!.on('data', (c: Buffer) => {
      said += c.toString();
      if (/listening on port|running on port/i.test(said)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`server-everything ${mode} exited (${code}): ${said}`)));
  });
  return port;
}

test('a Streamable HTTP server (type "http", a url and headers) lists and runs its tools', async () => {
  const port = await everything('streamableHttp');
  const f = mcpFixture({ MCP_TOKEN: 'secret-header-value' });
  fixtures.push(f);
  f.userServers({ remote: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: 'Bearer ${MCP_TOKEN}' } } });
  const hub = f.hub();
  await hub.startAll();
  const [status] = hub.statuses();
  assert.equal(status!.state, 'running', status!.error);
  assert.ok(status!.tools.some((t) => t.agentName === 'mcp__remote__get-sum'));
  const sum = await hub.request('remote', 'tools/call', { name: 'get-sum', arguments: { a: 2, b: 40 } });
  assert.match(JSON.stringify(sum.content), /42/);
});

test('an SSE server (type "sse") works, and an "http" definition falls back to SSE for an older server', async () => {
  const port = await everything('sse');
  const f = mcpFixture();
  fixtures.push(f);
  f.userServers({ old: { type: 'sse', url: `http://127.0.0.1:${port}/sse` }, guessed: { type: 'http', url: `http://127.0.0.1:${port}/sse` } });
  const hub = f.hub();
  await hub.startAll();
  for (const s of hub.statuses()) {
    assert.equal(s.state, 'running', `${s.name}: ${s.error}`);
    assert.ok(s.tools.some((t) => t.name === 'echo'));
  }
  const echo = await hub.request('old', 'tools/call', { name: 'echo', arguments: { message: 'over sse' } });
  assert.match(JSON.stringify(echo.content), /over sse/);
});
