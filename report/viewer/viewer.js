// The sample viewer (authbench.render.viewer writes data/*.js, which call the
// ABV.* functions below). Every data text goes through textContent: a reply
// holding HTML or a script is shown as text. One cell is loaded at a time;
// the sample list renders one page of rows, filtering on plain arrays.
"use strict";
var ABV = (function () {
  var PAGE = 100;
  var state = { catalog: null, cells: {}, index: {}, chunks: {}, cell: null, order: [], page: 0, waiting: {} };
  function $(id) { return document.getElementById(id); }
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function load(src, key, then) {  // inject a data script (fetch() does not work on file://)
    if (state.waiting[key]) { state.waiting[key].push(then); return; }
    state.waiting[key] = [then];
    var s = document.createElement("script");
    s.src = src;
    s.onerror = function () { $("shown").textContent = "could not load " + src; };
    document.body.appendChild(s);
  }
  function done(key) {
    var list = state.waiting[key] || [];
    delete state.waiting[key];
    list.forEach(function (f) { f(); });
  }
  // the index's and the chunks' JSON come gzipped and base64-encoded (authbench.render.viewer.packed)
  function unpack(b64, then) {
    if (typeof DecompressionStream === "undefined") {
      $("shown").textContent = "this browser has no DecompressionStream: "
        + "the viewer needs Chromium 80+, Firefox 113+ or Safari 16.4+";
      return;
    }
    Promise.resolve().then(function () {
      var bin = atob(b64), bytes = new Uint8Array(bin.length);
      for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
    }).then(function (text) { then(JSON.parse(text)); })
      .catch(function (err) { $("shown").textContent = "could not unpack the data: " + err; });
  }
  // a lone surrogate (a non-UTF-8 byte kept by surrogateescape) shown as \xNN, never dropped
  var LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
  function visible(s) {
    return s.replace(LONE, function (c) {
      var n = c.charCodeAt(0);
      return n >= 0xDC80 && n <= 0xDCFF ? "\\x" + (n - 0xDC00).toString(16) : "\\u" + n.toString(16);
    });
  }
  function show(v) {  // a string as is; an object one key a line; anything else as compact JSON
    if (v === null || v === undefined) return "—";
    if (typeof v === "string") return visible(v);
    if (typeof v === "object" && !Array.isArray(v)) {
      return visible(Object.keys(v).map(function (k) { return k + ": " + JSON.stringify(v[k]); }).join("\n"));
    }
    return visible(JSON.stringify(v));
  }
  function cellName(c) { return [c.model, c.judge, c.context, c.setting].join(" · "); }

  // --- the catalog ------------------------------------------------------------------
  function fillPicker(name) {
    var sel = $("p-" + name), seen = {};
    sel.textContent = "";
    sel.appendChild(el("option", "all")).value = "";
    state.catalog.cells.forEach(function (c) {
      if (!seen[c[name]]) { seen[c[name]] = 1; sel.appendChild(el("option", c[name])).value = c[name]; }
    });
    sel.onchange = renderCatalog;
  }
  function renderCatalog() {
    var body = $("catalog").tBodies[0], flagged = $("only-flagged").checked, fails = $("only-failures").checked;
    body.textContent = "";
    state.catalog.cells.forEach(function (c) {
      for (var i = 0; i < state.catalog.pickers.length; i++) {
        var p = state.catalog.pickers[i], v = $("p-" + p).value;
        if (v && c[p] !== v) return;
      }
      if (flagged && !c.flags.length) return;
      if (fails && !(c.counts.parse_failures > 0)) return;
      var tr = el("tr", undefined, c.available ? "" : "unavailable");
      tr.dataset.cell = c.id;
      tr.appendChild(el("td", c.cell));
      ["samples", "parse_failures", "correct", "wrong", "cached"].forEach(function (k) {
        tr.appendChild(el("td", c.available ? c.counts[k] : "", "num " + k));
      });
      tr.appendChild(el("td", c.flags.join("; "), "flag"));
      tr.appendChild(el("td", c.available ? "available" : "unavailable: " + c.reason, "status"));
      if (state.cell && state.cell.id === c.id) tr.className += " selected";
      tr.onclick = function () { if (c.available) openCell(c.id); };
      body.appendChild(tr);
    });
  }
  function catalog(data) {
    state.catalog = data;
    data.cells.forEach(function (c) { state.cells[c.id] = c; });
    document.title = data.study + ": sample viewer";
    $("title").textContent = data.study + ": sample viewer";
    data.pickers.forEach(fillPicker);
    $("only-flagged").onchange = renderCatalog;
    $("only-failures").onchange = renderCatalog;
    ["f-status", "f-correct", "f-cached", "f-outcome", "f-sort"].forEach(function (id) { $(id).onchange = applyFilter; });
    $("prev").onclick = function () { if (state.page > 0) { state.page--; renderPage(); } };
    $("next").onclick = function () { if ((state.page + 1) * PAGE < state.order.length) { state.page++; renderPage(); } };
    renderCatalog();
  }

  // --- one cell's samples -------------------------------------------------------------
  function openCell(id) {
    var c = state.cells[id];
    state.cell = c;
    renderCatalog();
    $("samples-pane").hidden = false;
    $("detail").hidden = true;
    $("cell-title").textContent = c.cell + (c.flags.length ? " — flagged: " + c.flags.join("; ") : "");
    if (state.index[id]) return showCell();
    $("shown").textContent = "loading…";
    load("data/" + id + "/index.js", "i" + id, showCell);
  }
  function index(id, packed) { unpack(packed, function (data) { state.index[id] = data; done("i" + id); }); }
  function showCell() {
    var ix = state.index[state.cell.id], sel = $("f-status");
    sel.textContent = "";
    sel.appendChild(el("option", "all")).value = "all";
    sel.appendChild(el("option", "parse failures (not ok, not retried)")).value = "fail";
    ix.statuses.forEach(function (s, i) { sel.appendChild(el("option", s || "(none)")).value = String(i); });
    $("f-outcome-box").hidden = !ix.outcome;  // a cell shown in both orders (its twin: the other order)
    if (!ix.outcome) $("f-outcome").value = "all";
    applyFilter();
  }
  function applyFilter() {
    var ix = state.index[state.cell.id], st = $("f-status").value, co = $("f-correct").value, ca = $("f-cached").value;
    var ok = ix.statuses.indexOf("ok"), retried = ix.statuses.indexOf("retried"), want = st === "all" || st === "fail" ? -2 : +st, order = [];
    var cw = co === "all" ? -2 : +co, cc = ca === "all" ? -2 : +ca, oc = $("f-outcome").value;
    for (var i = 0; i < ix.n; i++) {
      if (oc !== "all" && (!ix.outcome || ix.outcome[i] !== oc)) continue;
      if (st === "fail" && (ix.status[i] === ok || ix.status[i] === retried)) continue;
      if (want >= 0 && ix.status[i] !== want) continue;
      if (cw > -2 && ix.correct[i] !== cw) continue;
      if (cc > -2 && ix.cached[i] !== cc) continue;
      order.push(i);
    }
    var sort = $("f-sort").value, key = null;
    if (sort === "status") key = function (i) { return ix.status[i]; };
    if (sort === "correct") key = function (i) { return -ix.correct[i]; };
    if (sort === "wrong") key = function (i) { return ix.correct[i] === 0 ? -1 : ix.correct[i]; };
    if (sort === "prompt") key = function (i) { return -ix.prompt_chars[i]; };
    if (key) order.sort(function (a, b) { return key(a) - key(b) || a - b; });
    state.order = order;
    state.page = 0;
    renderPage();
  }
  function renderPage() {
    var ix = state.index[state.cell.id], body = $("samples").tBodies[0], from = state.page * PAGE;
    var to = Math.min(state.order.length, from + PAGE), frag = document.createDocumentFragment();
    body.textContent = "";
    for (var k = from; k < to; k++) {
      var i = state.order[k], tr = el("tr"), s = ix.statuses[ix.status[i]];
      tr.dataset.row = i;
      tr.appendChild(el("td", i, "num"));
      tr.appendChild(el("td", ix.request_id[i]));
      tr.appendChild(el("td", ix["try"][i], "num"));
      tr.appendChild(el("td", s, s === "ok" ? "ok" : "fail"));
      tr.appendChild(el("td", ix.correct[i] === 1 ? "correct" : ix.correct[i] === 0 ? "wrong" : "—"));
      tr.appendChild(el("td", ix.cached[i] ? "cached" : "computed"));
      tr.appendChild(el("td", visible(ix.value[i])));
      tr.appendChild(el("td", visible(ix.gold[i])));
      tr.onclick = openSample.bind(null, i);
      frag.appendChild(tr);
    }
    body.appendChild(frag);
    $("shown").textContent = state.order.length + " of " + ix.n + " samples";
    $("page").textContent = state.order.length ? (from + 1) + "–" + to : "0";
  }

  // --- one sample ---------------------------------------------------------------------
  function openSample(i) {
    var id = state.cell.id, c = Math.floor(i / state.catalog.chunk), key = "c" + id + "_" + c;
    var go = function () { showSample(i, state.chunks[key]); };
    if (state.chunks[key]) return go();
    load("data/" + id + "/chunk_" + c + ".js", key, go);
  }
  function chunk(id, c, packed) {  // prompts are front-coded: [characters shared with the one before, the rest]
    unpack(packed, function (data) {
      var key = "c" + id + "_" + c, before = "";
      data.prompts = data.prompts.map(function (p) { before = before.slice(0, p[0]) + p[1]; return before; });
      state.chunks[key] = data;
      done(key);
    });
  }
  function ranks(values) {  // 1 = highest value
    var idx = values.map(function (_, i) { return i; });
    idx.sort(function (a, b) { return (values[b] - values[a]) || a - b; });
    var r = []; idx.forEach(function (j, k) { r[j] = k + 1; }); return r;
  }
  function numbers(a) { return Array.isArray(a) && a.every(function (x) { return typeof x === "number"; }); }
  // a list: value = scores in the order shown, or (list_rank) the items' indices best first; gold = true levels
  function orderTable(value, gold, ranking) {
    var box = $("d-order"); box.textContent = "";
    if (!numbers(value) || !numbers(gold) || value.length !== gold.length || value.length < 2) return;
    var pred = value, pr;
    if (ranking) {  // [4, 3, 8, ...]: item 4 first; as a score, n - position
      pr = []; value.forEach(function (item, k) { pr[item] = k + 1; });
      if (pr.length !== value.length || pr.some(function (x) { return x === undefined; })) return;
      pred = pr.map(function (r) { return value.length - r; });
    } else { pr = ranks(pred); }
    box.appendChild(el("h3", "Predicted vs true order"));
    var t = el("table"), head = el("tr"), tr = ranks(gold), truth = gold;
    var cols = ranking ? ["item (as shown)", "predicted rank", "true level", "true rank"]
      : ["item", "predicted score", "predicted rank", "true level", "true rank"];
    cols.forEach(function (h) { head.appendChild(el("th", h)); });
    t.appendChild(head);
    pred.forEach(function (_, j) {
      var row = el("tr");
      (ranking ? [j, pr[j], truth[j], tr[j]] : [j + 1, pred[j], pr[j], truth[j], tr[j]]).forEach(function (v) { row.appendChild(el("td", v, "num")); });
      t.appendChild(row);
    });
    box.appendChild(t);
  }
  function showSample(i, data) {
    var ix = state.index[state.cell.id], r = data.rows[i % state.catalog.chunk];
    $("detail").hidden = false;
    $("d-title").textContent = "Sample " + i + ": request " + ix.request_id[i] + ", try " + ix["try"][i] + ", "
      + ix.statuses[ix.status[i]] + (ix.correct[i] === 1 ? ", correct" : ix.correct[i] === 0 ? ", wrong" : "")
      + (ix.cached[i] ? ", cached" : ", computed");
    $("d-prompt").textContent = visible(data.prompts[r.p]);
    $("d-reply").textContent = show(r.reply);
    $("d-gold").textContent = show(r.gold);
    $("d-value").textContent = show(r.value);
    $("d-expected").textContent = r.expected === null && r.score_probs === null ? "—"
      : "E[s]: " + show(r.expected) + "\ndistributions: " + show(r.score_probs);
    $("d-fields").textContent = show(Object.assign({ finish_reason: r.finish_reason, prompt_tokens: r.prompt_tokens,
      completion_tokens: r.completion_tokens, prompt_sha256: r.prompt_sha256 }, r.fields || {}));
    orderTable(r.value, r.gold, state.cell.judge === "list_rank");
    showTwin(ix, i);
    $("detail").scrollIntoView();
  }
  // a cell shown in both orders: the other order's reply beside this one (its chunk loaded on demand)
  function showTwin(ix, i) {
    var box = $("d-twin-box"), j = ix.twin_row ? ix.twin_row[i] : -1, twin = state.cell.twin;
    box.hidden = !(twin && j >= 0);
    if (box.hidden) return;
    var c = Math.floor(j / state.catalog.chunk), key = "c" + twin + "_" + c;
    $("d-twin-title").textContent = "Reply in the other order (" + ix.outcome[i] + ")";
    var go = function () {
      var r = state.chunks[key].rows[j % state.catalog.chunk];
      $("d-twin").textContent = show(r.reply) + "\n\nparsed: " + show(r.value);
    };
    if (state.chunks[key]) return go();
    $("d-twin").textContent = "loading…";
    load("data/" + twin + "/chunk_" + c + ".js", key, go);
  }
  return { catalog: catalog, index: index, chunk: chunk };
})();
