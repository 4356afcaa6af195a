"""`explore`: the backward graph as one self-contained HTML page (inline script and SVG, no
network), laid out in layers in the browser, with pan, zoom, search, folding by Module and
a panel of what each node holds."""
import html
import json
import os
import weakref

import numpy as np

from ..autograd._inspect import flatten, modules_of, roots_of, saved_of, walk
from ._dot import param_names

__all__ = ["explore", "graph_data", "record_gradients"]

# node -> per forward output, a summary of the gradient that flowed into it (or None)
_RECORDED = weakref.WeakKeyDictionary()


def summarize(t):
    """shape, dtype, norm, min, max and NaN/Inf counts of a tensor, JSON-ready."""
    a = np.asarray(t._data)
    out = {"shape": list(a.shape), "dtype": str(t.dtype)}
    if a.dtype.kind in "fc" and a.size:
        finite = a[np.isfinite(a)]
        out.update(norm=float(np.linalg.norm(finite.ravel())) if finite.size else None,
                   min=float(finite.real.min()) if finite.size else None,
                   max=float(finite.real.max()) if finite.size else None,
                   nan=int(np.isnan(a).sum()), inf=int(np.isinf(a).sum()))
    return out


class _Handles:
    def __init__(self, handles):
        self.handles = handles

    def remove(self):
        for h in self.handles:
            h.remove()

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.remove()


def record_gradients(*outputs):
    """Record, on every node of the graph of `outputs`, a summary of the gradient that
    flows into it during the next backward passes (a pre-hook each); `explore` shows them.
    Returns a handle whose remove() (or leaving it as a context manager) stops it."""
    nodes, _ = walk(roots_of(outputs))

    def hook_for(node):
        def record(grad_outputs):
            _RECORDED[node] = [None if g is None else summarize(g) for g in grad_outputs]
        return record

    return _Handles([node.register_prehook(hook_for(node)) for node in nodes])


def _hook_names(hooks):
    return [getattr(h, "__qualname__", None) or repr(h) for h in hooks]


def _node_details(node, index, names):
    h = node._hooks
    hooks = {}
    if h is not None:
        hooks = {"pre-hooks": _hook_names(h.pre.values()),
                 "hooks": _hook_names(h.post.values()),
                 "tensor hooks": _hook_names(f for _, f in h.tensor_pre.values())}
        hooks = {k: v for k, v in hooks.items() if v}
        meta = {str(k): repr(v)[:200] for k, v in h.metadata.items()}
    else:
        meta = {}
    saved = [{"name": i.name, "shape": i.shape and list(i.shape), "dtype": i.dtype,
              "bytes": i.nbytes, "version": i.version, "now": i.now, "freed": i.freed,
              "hooked": i.hooked} for i in saved_of(node)]
    nexts = [[None if fn is None else index[id(fn)], type(fn).__name__ if fn else None, nr]
             for fn, nr in node.next_functions]
    d = {"name": node.name(), "seq": None if node._sequence_nr > 2 ** 62 else node._sequence_nr,
         "next": nexts, "saved": saved, "hooks": hooks, "metadata": meta}
    grads = _RECORDED.get(node)
    if grads is not None:
        d["grad"] = grads
    variable = getattr(node, "variable", None)
    if variable is not None:
        d["leaf"] = names.get(id(variable), "")
    return d


def _tensor_details(t, name):
    d = {"tensor": summarize(t), "requires_grad": bool(t._requires_grad),
         "is_leaf": t._grad_fn is None, "param": name}
    if t._grad is not None:
        d["grad"] = summarize(t._grad)
    return d


def graph_data(*outputs, params=None, scopes=None):
    """The page's data: nodes (backward nodes, leaf tensors, outputs), edges (from a node
    to the nodes its gradient goes to), modules; a JSON-ready dict."""
    names = param_names(params)
    flat = flatten(outputs)
    nodes, edges = walk(roots_of(flat))
    index = {id(n): i for i, n in enumerate(nodes)}
    mods = modules_of(nodes, scopes)
    module_names = sorted({m for m in mods if m is not None})
    # every prefix of a module name is a module too (a parent whose forward made no node)
    for m in list(module_names):
        parts = m.split(".")
        module_names += [".".join(parts[:k]) for k in range(1, len(parts))]
    module_names = sorted(set(module_names))
    classes = {}
    if scopes is not None:
        classes = dict(zip(scopes.names, scopes.classes))
    midx = {m: i for i, m in enumerate(module_names)}
    out_nodes = []
    for node, m in zip(nodes, mods):
        kind = "acc" if hasattr(node, "variable") else "fn"
        out_nodes.append({"l": type(node).__name__, "k": kind, "m": midx.get(m, -1),
                          "d": _node_details(node, index, names)})
    out_edges = [[i, j] for i, j, _ in edges]
    n_fn = len(out_nodes)
    for i, node in enumerate(nodes):
        v = getattr(node, "variable", None)
        if v is not None:
            name = names.get(id(v), "")
            out_nodes.append({"l": name or "leaf " + "x".join(map(str, v.shape)) or "leaf",
                              "k": "leaf", "m": out_nodes[i]["m"], "d": _tensor_details(v, name)})
            out_edges.append([i, len(out_nodes) - 1])
    for t in flat:
        if not hasattr(t, "_data"):
            continue
        fn = t.grad_fn if t._requires_grad else None
        out_nodes.append({"l": "output " + "x".join(map(str, t.shape)), "k": "out", "m": -1,
                          "d": _tensor_details(t, names.get(id(t), ""))})
        if fn is not None and id(fn) in index:
            out_edges.append([len(out_nodes) - 1, index[id(fn)]])
    return {"nodes": out_nodes, "edges": out_edges, "backward_nodes": n_fn,
            "modules": [{"name": m, "cls": classes.get(m, "")} for m in module_names]}


def explore(*outputs, path="graph.html", params=None, scopes=None, title=None):
    """Write the backward graph of `outputs` as one self-contained HTML page to `path`
    (opens offline in any browser): layers from the outputs (top) to the leaves (bottom),
    pan (drag), zoom (wheel), search, folding of Module calls recorded by `scopes` (from
    `record_modules`), and a panel with each node's next_functions, saved tensors, hooks,
    metadata and the gradient `record_gradients` saw. `params` (a dict or Module) names the
    leaves. Returns the path."""
    data = graph_data(*outputs, params=params, scopes=scopes)
    title = title or "chainrule graph"
    payload = json.dumps(data, separators=(",", ":"), allow_nan=False).replace("</", "<\\/")
    page = (_TEMPLATE.replace("__TITLE__", html.escape(title))
            .replace("__DATA__", payload))
    path = os.fspath(path)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
    return path


_TEMPLATE = r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
html,body{margin:0;height:100%;font:13px system-ui,sans-serif;color:#222;overflow:hidden}
#bar{position:absolute;top:0;left:0;right:0;height:38px;display:flex;gap:12px;
 align-items:center;padding:0 10px;background:#f4f4f4;border-bottom:1px solid #ccc}
#bar input{width:220px;padding:3px 6px}
#stage{position:absolute;top:39px;left:0;right:360px;bottom:0;cursor:grab}
#stage.drag{cursor:grabbing}
#side{position:absolute;top:39px;right:0;width:359px;bottom:0;overflow:auto;
 border-left:1px solid #ccc;background:#fff;padding:0 10px;box-sizing:border-box}
svg{width:100%;height:100%;display:block;background:#fff}
g.n rect{fill:#e8e8e8;stroke:#888;stroke-width:1}
g.n text{font:11px monospace;text-anchor:middle;pointer-events:none}
g.k-acc rect{fill:#d0d0d0}
g.k-leaf rect{fill:#add8e6}
g.k-out rect{fill:#caff70}
g.k-group rect{fill:#ffe4b5;stroke:#b8860b;stroke-dasharray:4 2}
g.n.hit rect{stroke:#e00;stroke-width:3}
g.n.sel rect{stroke:#00f;stroke-width:3}
path.e{fill:none;stroke:#999;stroke-width:1}
path.hl{fill:none;stroke:#00f;stroke-width:2}
table{border-collapse:collapse;font:12px monospace}
td,th{border:1px solid #ddd;padding:1px 4px;text-align:left;vertical-align:top}
h3{margin:10px 0 4px}h4{margin:10px 0 3px}
.mod{cursor:pointer;white-space:nowrap}.mod:hover{text-decoration:underline}
.muted{color:#777}
</style></head><body>
<div id="bar"><b>__TITLE__</b>
<span><b id="node-count">0</b> backward nodes, <b id="tensor-count">0</b> tensors</span>
<input id="search" type="search" placeholder="search nodes (Enter: next)">
<span id="search-count" class="muted"></span>
<button id="fold-all">fold modules</button><button id="unfold-all">unfold</button>
<button id="fit">fit</button><span id="timing" class="muted"></span></div>
<div id="stage"><svg id="svg"><g id="view"><path id="edges" class="e"></path>
<path id="hl" class="hl"></path><g id="nodes"></g></g></svg></div>
<div id="side"><div id="panel"><h3>Click a node</h3><p class="muted">Drag to pan, wheel to
zoom; search by class name, parameter or module.</p></div><div id="modules"></div></div>
<script id="data" type="application/json">__DATA__</script>
<script>
"use strict";
const T0 = performance.now();
const G = JSON.parse(document.getElementById("data").textContent);
const N = G.nodes.length, NODE_H = 22, GAP_X = 14, GAP_Y = 38;
const folded = new Set();
let vis = null;           // the visible graph: what layout() and draw() work on
let view = {x: 0, y: 0, s: 1}, selected = -1, hits = [], hitAt = -1;
// per module, its ancestors (outermost first) and itself, by index
const modIndex = new Map(G.modules.map((m, i) => [m.name, i]));
const modChain = G.modules.map(m => {
  const parts = m.name.split("."), chain = [];
  for (let k = 1; k <= parts.length; k++) {
    const i = modIndex.get(parts.slice(0, k).join("."));
    if (i !== undefined) chain.push(i);
  }
  return chain;
});
const modCount = new Int32Array(G.modules.length);
for (const n of G.nodes) if (n.m >= 0) for (const a of modChain[n.m]) modCount[a]++;

function esc(s) {
  return String(s).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;",
                                             '"': "&quot;"}[c]));
}

// The visible graph: each node, or the box of the outermost folded module holding it.
function buildVisible() {
  const rep = new Int32Array(N), groups = new Map(), items = [];
  for (let i = 0; i < N; i++) {
    const m = G.nodes[i].m;
    let g = -1;
    if (m >= 0 && folded.size) for (const a of modChain[m]) if (folded.has(a)) { g = a; break; }
    if (g < 0) { rep[i] = items.length; items.push({node: i}); continue; }
    let v = groups.get(g);
    if (v === undefined) { v = items.length; groups.set(g, v); items.push({group: g}); }
    rep[i] = v;
  }
  const seen = new Set(), src = [], dst = [];
  for (const [a, b] of G.edges) {
    const u = rep[a], v = rep[b];
    if (u === v) continue;
    const key = u * 1048576 + v;
    if (seen.has(key)) continue;
    seen.add(key); src.push(u); dst.push(v);
  }
  for (const it of items) {
    if (it.node !== undefined) { const n = G.nodes[it.node]; it.label = n.l; it.kind = n.k; }
    else { const m = G.modules[it.group];
      it.label = m.name + (m.cls ? " (" + m.cls + ")" : "") + " [" + modCount[it.group] + "]";
      it.kind = "group"; }
    it.w = Math.ceil(it.label.length * 6.7) + 14;
  }
  return {items, rep, src: Int32Array.from(src), dst: Int32Array.from(dst)};
}

// Longest-path layers (outputs on top, leaves at the bottom), then barycenter ordering.
function layout(g) {
  const n = g.items.length, m = g.src.length;
  const outStart = new Int32Array(n + 1), inStart = new Int32Array(n + 1);
  for (let e = 0; e < m; e++) { outStart[g.src[e] + 1]++; inStart[g.dst[e] + 1]++; }
  for (let i = 0; i < n; i++) { outStart[i + 1] += outStart[i]; inStart[i + 1] += inStart[i]; }
  const outs = new Int32Array(m), ins = new Int32Array(m);
  const oFill = outStart.slice(0, n), iFill = inStart.slice(0, n);
  for (let e = 0; e < m; e++) {
    outs[oFill[g.src[e]]++] = g.dst[e];
    ins[iFill[g.dst[e]]++] = g.src[e];
  }
  const indeg = new Int32Array(n), layer = new Int32Array(n), done = new Uint8Array(n);
  for (let i = 0; i < n; i++) indeg[i] = inStart[i + 1] - inStart[i];
  const queue = new Int32Array(n);
  let head = 0, tail = 0, next = 0;
  for (let i = 0; i < n; i++) if (!indeg[i]) queue[tail++] = i;
  while (head < n) {
    if (head === tail) {     // a cycle (folding can make one): take the first node left
      while (done[next]) next++;
      queue[tail++] = next;
    }
    const u = queue[head++];
    if (done[u]) continue;
    done[u] = 1;
    for (let k = outStart[u]; k < outStart[u + 1]; k++) {
      const v = outs[k];
      if (done[v]) continue;
      if (layer[u] + 1 > layer[v]) layer[v] = layer[u] + 1;
      if (--indeg[v] === 0) queue[tail++] = v;
    }
  }
  let maxL = 0;
  for (let i = 0; i < n; i++) if (layer[i] > maxL) maxL = layer[i];
  let hasLeaf = false;
  for (let i = 0; i < n; i++) if (g.items[i].kind === "leaf") { hasLeaf = true; break; }
  if (hasLeaf) {
    maxL = Math.max(maxL, 1);
    for (let i = 0; i < n; i++) {
      const k = g.items[i].kind;
      if (k === "leaf") layer[i] = maxL;
      else if (k === "acc") layer[i] = maxL - 1;
    }
  }
  const layers = Array.from({length: maxL + 1}, () => []);
  for (let h = 0; h < n; h++) layers[layer[queue[h]]].push(queue[h]);
  const pos = new Float64Array(n);
  for (const L of layers) L.forEach((v, r) => pos[v] = (r + 0.5) / L.length);
  const key = new Float64Array(n);
  for (let sweep = 0; sweep < 4; sweep++) {
    const down = sweep % 2 === 0;
    const order = down ? layers : layers.slice().reverse();
    for (const L of order) {
      for (const v of L) {
        let s = 0, c = 0;
        const [st, en, adj] = down ? [inStart[v], inStart[v + 1], ins]
                                   : [outStart[v], outStart[v + 1], outs];
        for (let k = st; k < en; k++) { s += pos[adj[k]]; c++; }
        key[v] = c ? s / c : pos[v];
      }
      L.sort((a, b) => key[a] - key[b]);
      L.forEach((v, r) => pos[v] = (r + 0.5) / L.length);
    }
  }
  const x = new Float64Array(n), y = new Float64Array(n);
  for (let l = 0; l <= maxL; l++) {
    const L = layers[l];
    let total = -GAP_X;
    for (const v of L) total += g.items[v].w + GAP_X;
    let at = -total / 2;
    for (const v of L) {
      const w = g.items[v].w;
      x[v] = at + w / 2; at += w + GAP_X; y[v] = l * (NODE_H + GAP_Y);
    }
  }
  g.x = x; g.y = y; g.layers = layers.length;
}

function edgePath(g, u, v) {
  const x1 = g.x[u], y1 = g.y[u] + NODE_H / 2, x2 = g.x[v], y2 = g.y[v] - NODE_H / 2;
  const ym = (y1 + y2) / 2;
  return "M" + x1.toFixed(1) + " " + y1 + "C" + x1.toFixed(1) + " " + ym + " " + x2.toFixed(1) +
         " " + ym + " " + x2.toFixed(1) + " " + y2;
}

function draw(g) {
  const parts = new Array(g.src.length);
  for (let e = 0; e < g.src.length; e++) parts[e] = edgePath(g, g.src[e], g.dst[e]);
  document.getElementById("edges").setAttribute("d", parts.join(""));
  const out = new Array(g.items.length);
  for (let i = 0; i < g.items.length; i++) {
    const it = g.items[i], w = it.w;
    out[i] = '<g class="n k-' + it.kind + '" data-i="' + i + '" transform="translate(' +
      g.x[i].toFixed(1) + "," + g.y[i] + ')"><rect x="' + (-w / 2) + '" y="' + (-NODE_H / 2) +
      '" width="' + w + '" height="' + NODE_H + '" rx="3"></rect><text y="4">' + esc(it.label) +
      "</text></g>";
  }
  const nodes = document.getElementById("nodes");
  nodes.innerHTML = out.join("");
  g.els = nodes.children;
  document.getElementById("hl").setAttribute("d", "");
}

function apply() {
  document.getElementById("view").setAttribute("transform",
    "translate(" + view.x + "," + view.y + ") scale(" + view.s + ")");
}

function fit() {
  const g = vis, box = document.getElementById("stage").getBoundingClientRect();
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (let i = 0; i < g.items.length; i++) {
    const w = g.items[i].w / 2;
    x0 = Math.min(x0, g.x[i] - w); x1 = Math.max(x1, g.x[i] + w);
    y0 = Math.min(y0, g.y[i] - NODE_H / 2); y1 = Math.max(y1, g.y[i] + NODE_H / 2);
  }
  if (!isFinite(x0)) return;
  const s = Math.min(box.width / (x1 - x0 + 40), box.height / (y1 - y0 + 40), 1.5);
  view = {s, x: box.width / 2 - s * (x0 + x1) / 2, y: 20 - s * y0};
  apply();
}

function center(i) {
  const box = document.getElementById("stage").getBoundingClientRect();
  view.s = Math.max(view.s, 1);
  view.x = box.width / 2 - view.s * vis.x[i];
  view.y = box.height / 2 - view.s * vis.y[i];
  apply();
}

function rebuild() {
  vis = buildVisible();
  layout(vis);
  draw(vis);
  selected = -1;
  runSearch();
}

function fmt(v) { return v === null || v === undefined ? "" : typeof v === "number" ?
  (Number.isInteger(v) ? v : v.toPrecision(4)) : v; }

function gradTable(gs) {
  let h = "<table><tr><th>shape</th><th>norm</th><th>min</th><th>max</th><th>NaN</th>" +
          "<th>Inf</th></tr>";
  for (const s of gs) h += s ? "<tr><td>[" + s.shape + "]</td><td>" + fmt(s.norm) + "</td><td>" +
    fmt(s.min) + "</td><td>" + fmt(s.max) + "</td><td>" + fmt(s.nan) + "</td><td>" + fmt(s.inf) +
    "</td></tr>" : '<tr><td colspan="6">None</td></tr>';
  return h + "</table>";
}

function showNode(i) {
  const n = G.nodes[i], d = n.d, m = n.m >= 0 ? G.modules[n.m] : null;
  let h = '<h3 id="panel-title">' + esc(n.l) + "</h3>";
  if (m) h += '<div>module <span class="mod" data-m="' + n.m + '">' + esc(m.name) +
              "</span></div>";
  if (d.tensor) {
    h += "<div>" + (n.k === "leaf" ? "leaf tensor" : "output tensor") +
         (d.param ? " <b>" + esc(d.param) + "</b>" : "") + "</div>";
    h += "<div>requires_grad: " + d.requires_grad + "</div><h4>value</h4>" + gradTable([d.tensor]);
    h += "<h4>.grad</h4>" + (d.grad ? gradTable([d.grad]) : '<span class="muted">None</span>');
  } else {
    h += '<div class="muted">' + esc(d.name) + (d.seq !== null ? ", sequence " + d.seq : "") +
         "</div>";
    if (d.leaf !== undefined) h += "<div>leaf: <b>" + esc(d.leaf || "(unnamed)") + "</b></div>";
    h += "<h4>next_functions</h4>";
    if (!d.next.length) h += '<span class="muted">()</span>';
    for (const [j, name, nr] of d.next)
      h += "<div>" + (j === null ? '<span class="muted">None</span>' :
        '<a href="#" data-goto="' + j + '">' + esc(name) + "</a>") + ", " + nr + "</div>";
    h += "<h4>saved tensors</h4>";
    if (!d.saved.length) h += '<span class="muted">none</span>';
    else {
      h += '<table id="saved"><tr><th>name</th><th>shape</th><th>dtype</th><th>bytes</th>' +
           "<th>version</th><th>state</th></tr>";
      for (const s of d.saved) {
        const state = s.freed ? "freed" : s.hooked ? "packed: " + s.hooked :
          s.version !== null && s.now !== null && s.now !== s.version ?
          "modified (now " + s.now + ")" : "kept";
        h += "<tr><td>" + esc(s.name) + '</td><td class="saved-shape">' +
          (s.shape ? "[" + s.shape.join(", ") + "]" : "") + "</td><td>" + esc(s.dtype || "") +
          "</td><td>" + s.bytes + "</td><td>" + fmt(s.version) + "</td><td>" + state +
          "</td></tr>";
      }
      h += "</table>";
    }
    const hk = Object.entries(d.hooks);
    h += "<h4>hooks</h4>" + (hk.length ? hk.map(([k, v]) => "<div>" + esc(k) + ": " +
      esc(v.join(", ")) + "</div>").join("") : '<span class="muted">none</span>');
    const md = Object.entries(d.metadata);
    h += "<h4>metadata</h4>" + (md.length ? md.map(([k, v]) => "<div>" + esc(k) + ": " +
      esc(v) + "</div>").join("") : '<span class="muted">{}</span>');
    h += "<h4>gradient in</h4>" + (d.grad ? gradTable(d.grad) :
      '<span class="muted">not recorded (chainrule.viz.record_gradients before backward)</span>');
  }
  document.getElementById("panel").innerHTML = h;
}

function showGroup(gi) {
  const m = G.modules[gi];
  let bytes = 0, count = 0;
  for (const n of G.nodes) if (n.m >= 0 && modChain[n.m].includes(gi)) {
    count++;
    if (n.d.saved) for (const s of n.d.saved) bytes += s.bytes;
  }
  document.getElementById("panel").innerHTML = '<h3 id="panel-title">' + esc(m.name) +
    "</h3><div>" +
    esc(m.cls) + ", " + count + " nodes, " + bytes + " saved bytes</div>" +
    '<button data-unfold="' + gi + '">unfold</button>';
}

function select(v) {
  if (selected >= 0 && vis.els[selected]) vis.els[selected].classList.remove("sel");
  selected = v;
  vis.els[v].classList.add("sel");
  const it = vis.items[v];
  if (it.node !== undefined) showNode(it.node); else showGroup(it.group);
  const parts = [];
  for (let e = 0; e < vis.src.length; e++)
    if (vis.src[e] === v || vis.dst[e] === v) parts.push(edgePath(vis, vis.src[e], vis.dst[e]));
  document.getElementById("hl").setAttribute("d", parts.join(""));
}

function runSearch() {
  for (const v of hits) if (vis.els[v]) vis.els[v].classList.remove("hit");
  const q = document.getElementById("search").value.trim().toLowerCase();
  hits = []; hitAt = -1;
  if (q) for (let v = 0; v < vis.items.length; v++) {
    const it = vis.items[v];
    let text = it.label;
    if (it.node !== undefined) { const n = G.nodes[it.node];
      text += " " + (n.d.param || "") + " " + (n.d.leaf || "") + " " +
              (n.m >= 0 ? G.modules[n.m].name : ""); }
    if (text.toLowerCase().includes(q)) hits.push(v);
  }
  for (const v of hits) vis.els[v].classList.add("hit");
  document.getElementById("search-count").textContent = q ? hits.length + " found" : "";
}

function renderModules() {
  if (!G.modules.length) { document.getElementById("modules").innerHTML = ""; return; }
  let h = "<h4>modules (click to fold)</h4>";
  G.modules.forEach((m, i) => {
    const depth = m.name.split(".").length - 1;
    h += '<div class="mod" data-fold="' + i + '" style="padding-left:' + depth * 12 + 'px">' +
      (folded.has(i) ? "&#9656; " : "&#9662; ") + esc(m.name.split(".").pop()) +
      ' <span class="muted">' + esc(m.cls) + " [" + modCount[i] + "]</span></div>";
  });
  document.getElementById("modules").innerHTML = h;
}

function toggle(i) {
  if (folded.has(i)) folded.delete(i); else folded.add(i);
  renderModules(); rebuild();
}

const stage = document.getElementById("stage");
let drag = null;
stage.addEventListener("pointerdown", e => {
  const el = e.target.closest("g.n");
  if (el) { select(+el.dataset.i); return; }
  drag = {x: e.clientX - view.x, y: e.clientY - view.y}; stage.classList.add("drag");
});
window.addEventListener("pointermove", e => {
  if (!drag) return;
  view.x = e.clientX - drag.x; view.y = e.clientY - drag.y; apply();
});
window.addEventListener("pointerup", () => { drag = null; stage.classList.remove("drag"); });
stage.addEventListener("wheel", e => {
  e.preventDefault();
  const r = stage.getBoundingClientRect(), px = e.clientX - r.left, py = e.clientY - r.top;
  const f = Math.exp(-e.deltaY * 0.0015), s = Math.min(8, Math.max(0.02, view.s * f));
  view.x = px - (px - view.x) * s / view.s; view.y = py - (py - view.y) * s / view.s; view.s = s;
  apply();
}, {passive: false});
document.getElementById("search").addEventListener("input", runSearch);
document.getElementById("search").addEventListener("keydown", e => {
  if (e.key !== "Enter" || !hits.length) return;
  hitAt = (hitAt + 1) % hits.length;
  center(hits[hitAt]); select(hits[hitAt]);
});
document.getElementById("side").addEventListener("click", e => {
  const t = e.target.closest("[data-goto],[data-fold],[data-unfold],[data-m]");
  if (!t) return;
  e.preventDefault();
  if (t.dataset.goto !== undefined) { const v = vis.rep[+t.dataset.goto]; center(v); select(v); }
  else if (t.dataset.fold !== undefined) toggle(+t.dataset.fold);
  else if (t.dataset.unfold !== undefined) toggle(+t.dataset.unfold);
  else toggle(+t.dataset.m);
});
document.getElementById("fold-all").onclick = () => {
  // fold the children of the outermost modules (or those, when they have none)
  const all = G.modules.map((m, i) => i), kids = all.filter(i => modChain[i].length === 2);
  folded.clear();
  for (const i of kids.length ? kids : all.filter(i => modChain[i].length === 1)) folded.add(i);
  renderModules(); rebuild(); fit();
};
document.getElementById("unfold-all").onclick = () => {
  folded.clear(); renderModules(); rebuild(); fit();
};
document.getElementById("fit").onclick = fit;

document.getElementById("node-count").textContent = G.backward_nodes;
document.getElementById("tensor-count").textContent = N - G.backward_nodes;
renderModules();
rebuild();
fit();
requestAnimationFrame(() => {
  window.layoutMs = performance.now() - T0;
  document.getElementById("timing").textContent =
    "laid out in " + window.layoutMs.toFixed(0) + " ms";
  document.body.dataset.ready = "1";
});
</script></body></html>
"""
