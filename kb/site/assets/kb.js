/* kb's site script: sortable and filterable tables (with the vendored tablesort), and the
 * compare picker. Served from the site itself (no CDN). Runs on every page load, and again on
 * Material's instant navigation when that feature is on (document$). */
(function () {
  "use strict";

  var NUMBER = /^[+-]?\d+(\.\d+)?(\s|%|$)/;
  var DATE = /^\d{4}-\d{2}-\d{2}/;

  function cellText(cell) { return (cell.textContent || "").trim(); }

  /* Mark columns whose every filled cell starts with a number (not a date) as numeric, so
   * tablesort orders 96.1 above 54.1 and a "—" counts as 0. */
  function markNumericColumns(table) {
    var head = table.tHead && table.tHead.rows[0];
    if (!head) return;
    for (var c = 0; c < head.cells.length; c++) {
      var seen = 0, numeric = true;
      for (var r = 0; r < table.tBodies[0].rows.length; r++) {
        var cell = table.tBodies[0].rows[r].cells[c];
        if (!cell) continue;
        var t = cellText(cell).replace(/^[▲▼◆●✖?✔✘]\s*/, "");
        if (t === "" || t === "—") continue;
        seen++;
        if (!NUMBER.test(t) || DATE.test(t)) { numeric = false; break; }
      }
      if (numeric && seen) head.cells[c].setAttribute("data-sort-method", "number");
    }
  }

  function addFilter(table, index) {
    var rows = table.tBodies[0].rows;
    var box = document.createElement("div");
    box.className = "kb-filter";
    var id = "kb-filter-" + index;
    var label = document.createElement("label");
    label.setAttribute("for", id);
    label.textContent = "Filter rows";
    var input = document.createElement("input");
    input.type = "search";
    input.id = id;
    input.placeholder = "e.g. failed, cuda 13, eagle";
    var count = document.createElement("span");
    count.className = "kb-filter-count";
    count.setAttribute("aria-live", "polite");
    box.appendChild(label);
    box.appendChild(input);
    box.appendChild(count);
    var anchor = table.closest(".md-typeset__scrollwrap") || table;
    anchor.parentNode.insertBefore(box, anchor);
    input.addEventListener("input", function () {
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      for (var i = 0; i < rows.length; i++) {
        var text = rows[i].textContent.toLowerCase();
        var ok = words.every(function (w) { return text.indexOf(w) >= 0; });
        rows[i].hidden = !ok;
        if (ok) shown++;
      }
      count.textContent = words.length ? shown + " of " + rows.length + " rows" : "";
    });
  }

  /* A region that scrolls sideways must be reachable with the keyboard (WCAG 2.1.1). */
  function focusableScrollers() {
    document.querySelectorAll("article .md-typeset__scrollwrap, article .kb-diagram-box, article .kb-chart-box")
      .forEach(function (box) {
        if (!box.hasAttribute("tabindex")) {
          box.setAttribute("tabindex", "0");
          if (!box.hasAttribute("role")) box.setAttribute("role", "region");
          if (!box.hasAttribute("aria-label")) {
            var what = box.querySelector("svg[aria-label]");
            box.setAttribute("aria-label", what ? what.getAttribute("aria-label") : "table");
          }
        }
      });
  }

  function setUpTables() {
    var tables = document.querySelectorAll("article table:not([class]):not([data-kb-ready])");
    tables.forEach(function (table, i) {
      table.setAttribute("data-kb-ready", "1");
      if (!table.tHead || !table.tBodies.length || table.tBodies[0].rows.length < 2) return;
      markNumericColumns(table);
      if (typeof Tablesort === "function") new Tablesort(table);
      if (table.tBodies[0].rows.length >= 6) addFilter(table, i);
    });
  }

  /* ------------------------------------------------------------------ the compare picker */

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  function fmt(v) { return v === null || v === undefined ? "—" : String(Math.round(v * 1e6) / 1e6); }

  function table(headers, rows) {
    var wrap = el("div", null, "md-typeset__scrollwrap"), inner = el("div", null, "md-typeset__table");
    var t = el("table"), thead = el("thead"), tr = el("tr");
    wrap.appendChild(inner);
    inner.appendChild(t);
    headers.forEach(function (h) { tr.appendChild(el("th", h)); });
    thead.appendChild(tr);
    t.appendChild(thead);
    var tb = el("tbody");
    rows.forEach(function (r) {
      var row = el("tr");
      r.forEach(function (c) { row.appendChild(el("td", c)); });
      tb.appendChild(row);
    });
    t.appendChild(tb);
    return wrap;
  }

  function compare(data, aId, bId, out) {
    out.textContent = "";
    var A = data.attempts[aId], B = data.attempts[bId];
    if (!A || !B) return;
    if (aId === bId) { out.appendChild(el("p", "Pick two different attempts.")); return; }
    var page = data.pairs[aId + "--" + bId];
    var p = el("p");
    var la = el("a", A.title); la.href = A.url;
    var lb = el("a", B.title); lb.href = B.url;
    p.appendChild(document.createTextNode("A: ")); p.appendChild(la);
    p.appendChild(document.createTextNode(" (" + A.date + ", " + A.outcome + ") · B: ")); p.appendChild(lb);
    p.appendChild(document.createTextNode(" (" + B.date + ", " + B.outcome + ")"));
    out.appendChild(p);
    if (page) {
      var pp = el("p"); var lp = el("a", "This pair has a page of its own"); lp.href = page;
      pp.appendChild(lp); out.appendChild(pp);
    }
    var names = Object.keys(Object.assign({}, A.metrics, B.metrics));
    if (names.length) {
      out.appendChild(el("h2", "Metrics"));
      out.appendChild(table(["Metric", "A", "B", "Unit", "Δ", "%"], names.map(function (n) {
        var a = A.metrics[n], b = B.metrics[n];
        var unit = (b || a)[1], d = "—", pct = "—";
        if (a && b && a[1] === b[1]) {
          var dv = b[0] - a[0];
          d = (dv >= 0 ? "+" : "") + fmt(dv);
          if (n === B.headline && dv !== 0) d += ((dv > 0) === B.higher ? " ✔ better" : " ✘ worse");
          if (a[0]) pct = (dv >= 0 ? "+" : "") + (dv / a[0] * 100).toFixed(1) + " %";
        }
        return [(data.names[n] || n) + (n === B.headline ? " (headline)" : ""), fmt(a && a[0]), fmt(b && b[0]),
                unit, d, pct];
      })));
    }
    var titles = {flags: ["Flags", "Flag"], env: ["Environment", "Variable"],
                  components: ["Stack components", "Component"], platform: ["Platform", "Field"]};
    var same = [];
    Object.keys(titles).forEach(function (sec) {
      var fa = A.facts[sec], fb = B.facts[sec];
      var keys = Object.keys(Object.assign({}, fa, fb));
      var rows = keys.filter(function (k) { return fa[k] !== fb[k]; }).map(function (k) {
        var show = function (v) { return v === undefined ? "—" : (v === "" ? "(set)" : v); };
        return [k, show(fa[k]), show(fb[k])];
      });
      if (!rows.length) { if (keys.length) same.push(keys.length + " " + titles[sec][0].toLowerCase()); return; }
      out.appendChild(el("h2", titles[sec][0]));
      out.appendChild(table([titles[sec][1], "A", "B"], rows));
    });
    var onlyA = A.blocked_by.filter(function (x) { return B.blocked_by.indexOf(x) < 0; });
    var onlyB = B.blocked_by.filter(function (x) { return A.blocked_by.indexOf(x) < 0; });
    if (onlyA.length || onlyB.length) {
      out.appendChild(el("h2", "Blockers"));
      out.appendChild(table(["Blocker", "Blocks"], onlyA.map(function (x) { return [x, "only A"]; })
        .concat(onlyB.map(function (x) { return [x, "only B"]; }))));
    }
    if (same.length) out.appendChild(el("p", "The same in both: " + same.join(", ") + "."));
  }

  function setUpPicker() {
    var box = document.getElementById("kb-picker");
    if (!box || box.getAttribute("data-kb-ready")) return;
    box.setAttribute("data-kb-ready", "1");
    var selA = document.getElementById("kb-pick-a"), selB = document.getElementById("kb-pick-b");
    var out = document.getElementById("kb-pick-out");
    fetch(box.getAttribute("data-src")).then(function (r) { return r.json(); }).then(function (data) {
      var ids = Object.keys(data.attempts).sort(function (x, y) {
        var a = data.attempts[x], b = data.attempts[y];
        return a.date < b.date ? 1 : a.date > b.date ? -1 : (x < y ? 1 : -1);
      });
      [selA, selB].forEach(function (sel) {
        ids.forEach(function (id) {
          var o = el("option", data.attempts[id].date + " · " + data.attempts[id].title);
          o.value = id;
          sel.appendChild(o);
        });
      });
      var q = new URLSearchParams(window.location.search);
      if (q.get("a") && data.attempts[q.get("a")]) selA.value = q.get("a");
      if (q.get("b") && data.attempts[q.get("b")]) selB.value = q.get("b");
      else if (ids.length > 1 && selB.value === selA.value) selB.value = ids[ids[0] === selA.value ? 1 : 0];
      var run = function () {
        compare(data, selA.value, selB.value, out);
        var url = new URL(window.location.href);
        url.searchParams.set("a", selA.value);
        url.searchParams.set("b", selB.value);
        window.history.replaceState(null, "", url);
      };
      selA.addEventListener("change", run);
      selB.addEventListener("change", run);
      run();
      focusableScrollers();
    });
  }

  /* ------------------------------------------------------------------ search queries */

  /* lunr reads "word:" as a field name, and Material's search drops a term whose field it does
   * not know: "KeyError: 12" became a search for "12" alone. A colon that ends a word is
   * punctuation in error text, so it is removed before the query reaches the search worker
   * (title:, text: and tags: stay field queries). A command-line flag's leading "--" is dropped
   * too: lunr reads a leading "-" as "without this word", and "--flag" as a broken query (a
   * single "-word" keeps that meaning). Material sends a query as {type: 2, data}. */
  var FIELD = /^(title|text|tags)$/i;
  function plainQuery(q) {
    return q.replace(/([^\s:]+):(?=\s|$)/g, function (all, word) { return FIELD.test(word) ? all : word; })
      .replace(/(^|\s)--+(?=\S)/g, "$1");
  }
  if (typeof Worker !== "undefined" && !Worker.prototype.__kbQuery) {
    var post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (msg) {
      if (msg && msg.type === 2 && typeof msg.data === "string") {
        arguments[0] = {type: msg.type, data: plainQuery(msg.data)};
      }
      return post.apply(this, arguments);
    };
    Worker.prototype.__kbQuery = true;
  }

  function init() { setUpTables(); setUpPicker(); focusableScrollers(); }

  if (typeof document$ !== "undefined" && document$.subscribe) document$.subscribe(init);
  else if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
