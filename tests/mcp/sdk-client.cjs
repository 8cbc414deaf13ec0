// The official MCP TypeScript SDK's client against kbx mcp, over stdio.
//
//   node sdk-client.cjs NPM_DIR KBX REPO
//
// NPM_DIR holds the pinned packages (tests/mcp/package.json, installed by
// 'make mcp-deps'); KBX is the kbx program; REPO an indexed repository
// of tests/t8410-mcp-sdk.sh (calc.c with add_numbers, scale and
// compute_total; main.c; many gen_*.c files for an index to cancel).
// Prints TAP, one line a check; exits 1 when one failed.
'use strict';

const path = require('path');
const { createRequire } = require('module');

const [npmDir, kbx, repo] = process.argv.slice(2);
const need = createRequire(path.join(path.resolve(npmDir), 'package.json'));
const { Client } = need('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = need('@modelcontextprotocol/sdk/client/stdio.js');
const types = need('@modelcontextprotocol/sdk/types.js');

let n = 0, failed = 0;
function ok(cond, what, detail) {
	n++;
	if (!cond)
		failed++;
	console.log(`${cond ? '' : 'not '}ok ${n} - ${what}`);
	if (!cond && detail !== undefined)
		console.log('# ' + JSON.stringify(detail).slice(0, 2000));
}

async function main() {
	const transport = new StdioClientTransport({ command: kbx, args: ['mcp'], cwd: repo, stderr: 'pipe' });
	let stderr = '';
	transport.stderr.on('data', (d) => { stderr += d; });
	const client = new Client({ name: 'kbx-sdk-test', version: '1.0.0' });
	await client.connect(transport);

	const info = client.getServerVersion();
	ok(info && info.name === 'kbx', 'initialize: the server is kbx', info);
	ok(client.getServerCapabilities().tools !== undefined, 'initialize: it serves tools');
	ok(types.SUPPORTED_PROTOCOL_VERSIONS.includes(types.LATEST_PROTOCOL_VERSION),
		`the SDK's newest revision is ${types.LATEST_PROTOCOL_VERSION}`);

	const { tools } = await client.listTools();
	const names = tools.map((t) => t.name).sort();
	const want = ['callees', 'callers', 'changed', 'defs', 'hybrid', 'impact', 'index',
		'path', 'repos', 'search', 'status'];
	ok(want.every((w) => names.includes(w)), 'tools/list lists every tool', names);
	ok(tools.every((t) => t.inputSchema.type === 'object' && t.outputSchema &&
		t.outputSchema.type === 'object' && 'repo' in t.inputSchema.properties),
		'each tool has an input and an output schema, and takes repo');

	// good calls: the SDK checks structuredContent against outputSchema
	const good = {
		search: { query: 'doubles a number' },
		hybrid: { question: 'who calls scale' },
		callers: { symbol: 'add_numbers' },
		callees: { symbol: 'scale' },
		defs: { symbol: 'compute_total' },
		impact: { symbol: 'add_numbers' },
		path: { from: 'main', to: 'add_numbers' },
		changed: {},
		repos: {},
		status: {},
	};
	if (names.includes('context'))
		good.context = { question: 'what doubles a number', budget: 500 };
	for (const [name, args] of Object.entries(good)) {
		try {
			const r = await client.callTool({ name, arguments: args });
			ok(!r.isError && Array.isArray(r.structuredContent.records) &&
				typeof r.content[0].text === 'string',
				`${name}: a good call answers records and text`, r);
		} catch (e) {
			ok(false, `${name}: a good call answers records and text`, String(e));
		}
	}
	const r0 = await client.callTool({ name: 'callers', arguments: { symbol: 'add_numbers' } });
	ok(r0.structuredContent.records.some((x) => x.type === 'caller' && x.name === 'scale'),
		'callers of add_numbers: scale', r0.structuredContent);

	// bad calls: tool errors with kbx's message
	const bad = {
		search: [{}, "'search' takes the argument 'query'"],
		hybrid: [{ question: 'x', limit: 'many' }, "'limit' must be an integer"],
		callers: [{ symbol: 'scale', colour: 1 }, "takes no argument 'colour'"],
		callees: [{ symbol: 'scale', depth: 0 }, '--depth'],
		defs: [{ symbol: 7 }, "'symbol' must be a string"],
		impact: [{ symbol: 'x', certain: 'yes' }, "'certain' must be true or false"],
		path: [{ from: 'main' }, "'path' takes the argument 'to'"],
		changed: [{ rev: 'no-such-revision' }, 'no-such-revision'],
		repos: [{ repo: 'no-such-repo' }, 'no-such-repo'],
		status: [{ repo: '../elsewhere' }, 'not a path'],
		index: [{ rebuild: 1 }, "'rebuild' must be true or false"],
	};
	if (names.includes('context'))
		bad.context = [{}, "'context' takes the argument 'question'"];
	for (const [name, [args, msg]] of Object.entries(bad)) {
		const r = await client.callTool({ name, arguments: args });
		ok(r.isError === true && r.content[0].text.includes(msg),
			`${name}: a bad call is a tool error naming the problem`, r);
	}
	try {
		await client.callTool({ name: 'no_such_tool', arguments: {} });
		ok(false, 'an unknown tool is a JSON-RPC error');
	} catch (e) {
		ok(e instanceof types.McpError && e.code === types.ErrorCode.InvalidParams,
			'an unknown tool is a JSON-RPC error (-32602)', String(e));
	}

	// a question of 1 MB
	const big = 'which function doubles a number and adds one '.repeat(30000).slice(0, 1 << 20);
	const rb = await client.callTool({ name: 'search', arguments: { query: big } });
	ok(!rb.isError && rb.structuredContent.records.length > 0, 'a 1 MB question is answered',
		rb.content && rb.content[0].text.slice(0, 300));

	// index with progress, to the end
	let steps = [];
	const ri = await client.callTool({ name: 'index', arguments: {} }, undefined,
		{ onprogress: (p) => steps.push(p) });
	ok(!ri.isError && ri.structuredContent.records[0].type === 'index', 'index: a summary record', ri);
	ok(steps.length > 0 && steps.every((p, i) => i === 0 || p.progress > steps[i - 1].progress),
		'index: progress notifications, always growing', steps);

	// cancel a rebuild at its first progress: the index stays as it was
	const before = (await client.callTool({ name: 'status', arguments: {} })).structuredContent.records[0];
	const ac = new AbortController();
	let cancelled = false;
	try {
		await client.callTool({ name: 'index', arguments: { rebuild: true } }, undefined,
			{ signal: ac.signal, onprogress: () => ac.abort('test') });
	} catch (e) {
		cancelled = true;
	}
	ok(cancelled, 'index: cancelled at the first progress');
	await client.ping();
	const after = (await client.callTool({ name: 'status', arguments: {} })).structuredContent.records[0];
	ok(after.generation === before.generation && after.files === before.files,
		'index: the cancelled rebuild left the index as it was', { before, after });

	// closing stdin ends the server with status 0
	const proc = transport._process;
	const exited = new Promise((resolve) => {
		if (!proc)
			return resolve(null);
		if (proc.exitCode !== null)
			return resolve({ code: proc.exitCode, signal: proc.signalCode });
		proc.once('exit', (code, signal) => resolve({ code, signal }));
	});
	const t0 = Date.now();
	proc.stdin.end();
	const status = await exited;
	ok(status && status.code === 0 && Date.now() - t0 < 2000,
		'closing stdin ends kbx mcp with status 0', status);
	await client.close();
	ok(!/^fatal:/m.test(stderr), 'no fatal message on stderr', stderr);
	console.log(`1..${n}`);
	process.exit(failed ? 1 : 0);
}

main().catch((e) => {
	console.log(`not ok ${n + 1} - the client ran to the end`);
	console.log('# ' + String(e && e.stack || e));
	console.log(`1..${n + 1}`);
	process.exit(1);
});
