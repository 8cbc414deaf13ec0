// An HTTP front for kbx mcp, for the conformance suite, which tests servers
// over the Streamable HTTP transport only: each session the suite opens is
// one kbx mcp child over stdio, and every message goes through unchanged
// (the SDK's transports do the HTTP and the framing, nothing else).
//
//   node http-bridge.cjs NPM_DIR KBX REPO
//
// Listens on 127.0.0.1 at a free port and prints "http://127.0.0.1:PORT/mcp"
// on stdout once it does; runs until killed.
'use strict';

const http = require('http');
const path = require('path');
const { randomUUID } = require('crypto');
const { createRequire } = require('module');

// Node 18 has no global crypto, which the SDK's HTTP transport uses
if (!globalThis.crypto)
	globalThis.crypto = require('crypto').webcrypto;

const [npmDir, kbx, repo] = process.argv.slice(2);
const need = createRequire(path.join(path.resolve(npmDir), 'package.json'));
const { StreamableHTTPServerTransport } = need('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { StdioClientTransport } = need('@modelcontextprotocol/sdk/client/stdio.js');
const { isInitializeRequest } = need('@modelcontextprotocol/sdk/types.js');

const sessions = {};

async function newSession() {
	const child = new StdioClientTransport({ command: kbx, args: ['mcp'], cwd: repo, stderr: 'inherit' });
	const front = new StreamableHTTPServerTransport({
		sessionIdGenerator: () => randomUUID(),
		onsessioninitialized: (id) => { sessions[id] = front; },
	});
	// progress notifications go on the stream of the request they are about
	const requestOf = new Map();
	front.onmessage = (m) => {
		const token = m.params && m.params._meta && m.params._meta.progressToken;
		if (token !== undefined && m.id !== undefined)
			requestOf.set(token, m.id);
		child.send(m).catch((e) => console.error('bridge: ' + e));
	};
	child.onmessage = (m) => {
		let opts;
		if (m.method === 'notifications/progress')
			opts = { relatedRequestId: requestOf.get(m.params.progressToken) };
		front.send(m, opts).catch((e) => console.error('bridge: ' + e));
	};
	front.onclose = () => {
		if (front.sessionId)
			delete sessions[front.sessionId];
		child.close();
	};
	await child.start();
	await front.start();
	return front;
}

function reply(res, status, code, message) {
	res.writeHead(status, { 'Content-Type': 'application/json' });
	res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

const server = http.createServer(async (req, res) => {
	try {
		if (!req.url.startsWith('/mcp'))
			return reply(res, 404, -32000, 'not found');
		let body;
		if (req.method === 'POST') {
			let text = '';
			for await (const chunk of req)
				text += chunk;
			try {
				body = JSON.parse(text);
			} catch (e) {
				return reply(res, 400, -32700, 'parse error');
			}
		}
		const sid = req.headers['mcp-session-id'];
		let front = sid ? sessions[sid] : undefined;
		if (!front) {
			if (sid || req.method !== 'POST' || !isInitializeRequest(body))
				return reply(res, sid ? 404 : 400, -32000, 'no such session');
			front = await newSession();
		}
		await front.handleRequest(req, res, body);
	} catch (e) {
		console.error('bridge: ' + (e && e.stack || e));
		if (!res.headersSent)
			reply(res, 500, -32603, 'internal error');
	}
});

server.listen(0, '127.0.0.1', () => {
	console.log(`http://127.0.0.1:${server.address().port}/mcp`);
});
