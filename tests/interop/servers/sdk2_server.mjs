// A TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0) server for the interop suite. v2 has no
// task support, so it shows the era negotiation only (server/discover, and initialize through the
// stateless fallback). Run: node sdk2_server.mjs stdio | PORT=N node sdk2_server.mjs http
import http from 'node:http';
import * as z from 'zod';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

const factory = () => {
  const s = new McpServer({ name: 'sdk2-probe', version: '2.4.0' }, { capabilities: { tools: {} } });
  s.registerTool('echo', { description: 'echo', inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => ({ content: [{ type: 'text', text }] }));
  s.registerTool('slow', { description: 'sleep', inputSchema: z.object({ ms: z.number().default(2000) }) },
    async ({ ms }) => { await new Promise(r => setTimeout(r, ms)); return { content: [{ type: 'text', text: `slept ${ms}` }] }; });
  return s;
};

if (process.argv[2] === 'http') {
  const handler = createMcpHandler(factory, { legacy: process.env.LEGACY || 'stateless' });
  const port = Number(process.env.PORT || 8821);
  http.createServer(async (req, res) => {
    if (!req.url.startsWith('/mcp')) { res.statusCode = 404; res.end(); return; }
    const chunks = []; for await (const c of req) chunks.push(c);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const headers = new Headers(); for (const [k, v] of Object.entries(req.headers)) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
    const ac = new AbortController(); res.on('close', () => ac.abort());
    const request = new Request(`http://${req.headers.host}${req.url}`, { method: req.method, headers, body: ['GET', 'HEAD'].includes(req.method) ? undefined : body, signal: ac.signal });
    const response = await handler.fetch(request);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) { for await (const chunk of response.body) res.write(chunk); }
    res.end();
  }).listen(port, '127.0.0.1', () => console.error(`sdk2 http on 127.0.0.1:${port}/mcp`));
} else {
  serveStdio(factory);
}
