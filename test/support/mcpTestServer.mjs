#!/usr/bin/env node
// A real MCP server (the SDK's server API, over stdio) that misbehaves on request, for the tests of
// Braid's MCP client: `node mcpTestServer.mjs [exit-at-start]`. Its tools:
//   show-env      answers the server's environment as JSON
//   crash         the process exits in the middle of the call
//   hang          never answers
//   huge          answers `megabytes` MB of text (50 by default)
//   good          answers "good: <text>"
//   bad-schema    listed with an input schema whose type is not "object"
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

if (process.argv[2] === 'exit-at-start') {
  process.stderr.write('test server: cannot start, its configuration is missing\n');
  process.exit(3);
}

const object = (properties = {}) => ({ type: 'object', properties });
const tools = [
  { name: 'show-env', description: 'The server process environment', inputSchema: object() },
  { name: 'crash', description: 'Exits mid-call', inputSchema: object() },
  { name: 'hang', description: 'Never answers', inputSchema: object() },
  { name: 'huge', description: 'A huge answer', inputSchema: object({ megabytes: { type: 'number' } }) },
  { name: 'good', description: 'Echoes text', inputSchema: { ...object({ text: { type: 'string' } }), required: ['text'] } },
  { name: 'bad-schema', description: 'Its schema is not an object schema', inputSchema: { type: 'string' } },
];

const server = new Server({ name: 'braid-test-server', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const args = request.params.arguments ?? {};
  const text = (t) => ({ content: [{ type: 'text', text: t }] });
  switch (request.params.name) {
    case 'show-env':
      return text(JSON.stringify(process.env));
    case 'crash':
      process.exit(7);
      break;
    case 'hang':
      return new Promise(() => undefined);
    case 'huge':
      return text('x'.repeat(Math.round((Number(args.megabytes) || 50) * 1024 * 1024)));
    case 'good':
      return text(`good: ${args.text}`);
  }
  return { content: [{ type: 'text', text: `unknown tool ${request.params.name}` }], isError: true };
});
await server.connect(new StdioServerTransport());
