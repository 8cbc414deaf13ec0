/*
 * kbx serve's page: the repositories, a question asked of /v1/rag, and a
 * picture of the call graph around a symbol from /v1/callers and
 * /v1/callees.  Everything that comes from a repository reaches the page
 * as text (textContent, SVG text nodes), never as markup.
 */
"use strict";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

function el(tag, cls, text) {
	const e = document.createElement(tag);
	if (cls) e.className = cls;
	if (text !== undefined && text !== null) e.textContent = String(text);
	return e;
}

function say(text, isError) {
	const s = $("status");
	s.textContent = text;
	s.className = isError ? "error" : "muted";
}

function token() {
	return sessionStorage.getItem("kbx-token") || "";
}

/* POST (or GET when body is null) an endpoint of /v1/; the JSON answer,
 * or an Error with the server's message. */
async function api(name, body) {
	const headers = {};
	if (token()) headers["Authorization"] = "Bearer " + token();
	const init = { method: body === null ? "GET" : "POST", headers };
	if (body !== null) {
		headers["Content-Type"] = "application/json";
		init.body = JSON.stringify(body);
	}
	const r = await fetch("/v1/" + name, init);
	let data = null;
	try {
		data = await r.json();
	} catch (e) {
		throw new Error("HTTP " + r.status + ": the answer is not JSON");
	}
	if (r.status === 401) $("token-box").hidden = false;
	if (!r.ok) {
		const err = data && data.error ? data.error : {};
		throw new Error((err.message || "HTTP " + r.status) +
				(err.meaning ? " (" + err.meaning + ")" : ""));
	}
	return data;
}

function repo() {
	return $("repo").value || null;
}

function withRepo(args) {
	if (repo()) args.repo = repo();
	return args;
}

async function loadRepos() {
	try {
		const data = await api("repos", null);
		const sel = $("repo");
		for (const r of data.records) {
			const label = r.name + " (" + r.status +
				(typeof r.files === "number" ? ", " + r.files + " files" : "") + ")";
			const o = el("option", null, label);
			o.value = r.name;
			o.dataset.status = r.status;
			o.dataset.error = r.error || "";
			sel.appendChild(o);
		}
		say(data.records.length + " repositories");
	} catch (e) {
		say("cannot list the repositories: " + e.message, true);
	}
}

function showRepoState() {
	const o = $("repo").selectedOptions[0];
	$("repo-state").textContent = o && o.dataset.error ? o.dataset.error : "";
}

function loc(rec) {
	const s = el("span", "loc", rec.path + ":" + rec.line);
	s.title = "draw the graph around " + (rec.id || rec.name);
	s.addEventListener("click", () => {
		$("symbol").value = rec.id || rec.name;
		drawGraph();
	});
	return s;
}

function showPlan(plan) {
	const box = $("plan");
	box.replaceChildren();
	if (!plan) {
		box.appendChild(el("p", "muted", "no plan"));
		return;
	}
	const p = el("p");
	p.appendChild(el("span", null, "traversal: " + (plan.traversal || "none") +
		", depth " + plan.depth + ", " + plan.candidates + " candidates"));
	box.appendChild(p);
	const seeds = el("ul");
	for (const s of plan.seeds || []) {
		const li = el("li", null, "seed " + s.name + " (" + s.kind + ", from " + s.from + ") ");
		li.appendChild(loc(s));
		seeds.appendChild(li);
	}
	if (!(plan.seeds || []).length) seeds.appendChild(el("li", "muted", "no seed"));
	box.appendChild(seeds);
	for (const n of plan.notes || [])
		box.appendChild(el("p", "muted", typeof n === "string" ? n : JSON.stringify(n)));
}

function showNodes(nodes) {
	const list = $("nodes");
	list.replaceChildren();
	for (const n of nodes) {
		const li = el("li");
		li.appendChild(el("strong", null, n.name));
		li.appendChild(el("span", null, " " + n.kind + " "));
		li.appendChild(loc(n));
		li.appendChild(el("span", "muted", " " + n.confidence + ", score " +
			Number(n.score).toFixed(3)));
		if (Array.isArray(n.via) && n.via.length)
			li.appendChild(el("div", "via", "from the seed: " +
				n.via.map((v) => v.name).join(" \u2192 ")));
		list.appendChild(li);
	}
	if (!nodes.length) list.appendChild(el("li", "muted", "none"));
}

function showChunks(chunks) {
	const list = $("chunks");
	list.replaceChildren();
	for (const c of chunks) {
		const li = el("li", "chunk");
		const head = el("div");
		head.appendChild(el("strong", null, c.title || c.id));
		head.appendChild(el("span", null, " "));
		head.appendChild(loc(c));
		head.appendChild(el("span", "muted", " " + c.kind + ": " + c.why));
		li.appendChild(head);
		li.appendChild(el("pre", null, c.text));
		list.appendChild(li);
	}
	if (!chunks.length) list.appendChild(el("li", "muted", "none"));
}

async function ask(ev) {
	ev.preventDefault();
	const q = $("question").value.trim();
	if (!q) return;
	say("asking\u2026");
	try {
		const body = { query: q, top_k: Number($("top-k").value) || 10 };
		if (repo()) body.repo_id = repo();
		const a = await api("rag", body);
		showPlan(a.plan);
		showNodes(a.nodes);
		showChunks(a.chunks);
		say(a.chunks.length + " chunks, " + a.nodes.length + " nodes");
	} catch (e) {
		say(e.message, true);
	}
}

/* ---- the graph ---- */

function svg(tag, attrs, text) {
	const e = document.createElementNS(SVG, tag);
	for (const k in attrs) e.setAttribute(k, String(attrs[k]));
	if (text !== undefined) e.textContent = String(text);
	return e;
}

/* Columns: callers at -1, -2, the symbol at 0, callees at 1, 2. */
function layout(center, callers, callees) {
	const nodes = new Map();
	const edges = [];
	const add = (rec, col) => {
		if (!nodes.has(rec.id)) nodes.set(rec.id, { rec, col });
	};
	nodes.set(center.id, { rec: center, col: 0, center: true });
	/* a name of several definitions also gives "symbol" records */
	for (const r of callers.filter((x) => x.type === "caller")) {
		add(r, -r.depth);
		edges.push({ from: r.from, to: r.to, amb: r.confidence !== "certain" });
	}
	for (const r of callees.filter((x) => x.type === "callee")) {
		add(r, r.depth);
		edges.push({ from: r.from, to: r.to, amb: r.confidence !== "certain" });
	}
	return { nodes, edges };
}

function draw(g) {
	const W = 150, H = 38, GX = 44, GY = 14;
	const cols = new Map();
	for (const n of g.nodes.values()) {
		if (!cols.has(n.col)) cols.set(n.col, []);
		cols.get(n.col).push(n);
	}
	const keys = [...cols.keys()].sort((a, b) => a - b);
	const rows = Math.max(...[...cols.values()].map((c) => c.length));
	const width = keys.length * (W + GX) + GX, height = rows * (H + GY) + GY;
	keys.forEach((k, i) => cols.get(k).forEach((n, j) => {
		n.x = GX / 2 + i * (W + GX);
		n.y = GY + j * (H + GY) + (rows - cols.get(k).length) * (H + GY) / 2;
	}));
	const root = svg("svg", { viewBox: "0 0 " + width + " " + height, width, height,
				 role: "img", "aria-label": "call graph" });
	const defs = svg("defs", {});
	const marker = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5,
				       markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
	marker.appendChild(svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#555" }));
	defs.appendChild(marker);
	root.appendChild(defs);
	for (const e of g.edges) {
		const a = g.nodes.get(e.from), b = g.nodes.get(e.to);
		if (!a || !b) continue;
		const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2;
		const attrs = { class: "edge" + (e.amb ? " ambiguous" : ""), "marker-end": "url(#arrow)",
				d: "M" + x1 + "," + y1 + " C" + (x1 + GX / 2) + "," + y1 + " " +
				   (x2 - GX / 2) + "," + y2 + " " + x2 + "," + y2 };
		if (e.amb) attrs["stroke-dasharray"] = "5 4";
		root.appendChild(svg("path", attrs));
	}
	for (const n of g.nodes.values()) {
		const grp = svg("g", { class: "node" + (n.center ? " center" : ""),
				       transform: "translate(" + n.x + "," + n.y + ")" });
		grp.appendChild(svg("title", {}, n.rec.id));
		grp.appendChild(svg("rect", { width: W, height: H, rx: 5 }));
		const clip = (s, m) => (s.length > m ? s.slice(0, m - 1) + "\u2026" : s);
		grp.appendChild(svg("text", { x: 8, y: 16 }, clip(String(n.rec.name), 19)));
		grp.appendChild(svg("text", { x: 8, y: 32 }, clip(n.rec.path + ":" + n.rec.line, 20)));
		grp.addEventListener("click", () => {
			$("symbol").value = n.rec.id;
			drawGraph();
		});
		root.appendChild(grp);
	}
	$("graph").replaceChildren(root);
}

async function drawGraph(ev) {
	if (ev) ev.preventDefault();
	const sym = $("symbol").value.trim();
	if (!sym) return;
	say("drawing\u2026");
	try {
		const [defs, callers, callees] = await Promise.all([
			api("defs", withRepo({ symbol: sym })),
			api("callers", withRepo({ symbol: sym, depth: 2 })),
			api("callees", withRepo({ symbol: sym, depth: 2 })),
		]);
		const c = defs.records[0];
		if (!c) throw new Error("no definition of " + sym);
		const g = layout(c, callers.records, callees.records);
		draw(g);
		say(g.nodes.size + " functions, " + g.edges.length + " calls around " + c.name);
	} catch (e) {
		/* the status line is shared with a question asked at the same
		 * time: the error also stays where the picture would be */
		say(e.message, true);
		$("graph").replaceChildren(el("p", "error", "no picture: " + e.message));
	}
}

/* A link may carry ?repo=NAME&q=QUESTION&symbol=NAME: the page picks the
 * repository (one of the list only), asks and draws, as if typed. */
async function fromLink() {
	const p = new URLSearchParams(location.search);
	const r = p.get("repo");
	if (r && [...$("repo").options].some((o) => o.value === r)) {
		$("repo").value = r;
		showRepoState();
	}
	const jobs = [];
	if (p.get("q")) {
		$("question").value = p.get("q");
		jobs.push(ask(new Event("submit")));
	}
	if (p.get("symbol")) {
		$("symbol").value = p.get("symbol");
		jobs.push(drawGraph());
	}
	await Promise.all(jobs);
	document.body.dataset.ready = "yes";
}

document.addEventListener("DOMContentLoaded", () => {
	$("ask").addEventListener("submit", ask);
	$("graph-form").addEventListener("submit", drawGraph);
	$("repo").addEventListener("change", showRepoState);
	$("token-save").addEventListener("click", () => {
		sessionStorage.setItem("kbx-token", $("token").value.trim());
		$("token-box").hidden = true;
		$("repo").replaceChildren(el("option", null, "(the one kbx serve runs in)"));
		$("repo").firstChild.value = "";
		loadRepos();
	});
	loadRepos().then(fromLink);
});
