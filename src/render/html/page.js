// scribe transcript page: local times, expand/collapse all, links into folded places, search,
// print. Inlined; allowed by the page's CSP through its SHA-256 hash. Everything works from
// file:// and the page is complete without it (times then read in UTC, every toggle still opens).
(function () {
  "use strict";
  var doc = document;
  var main = doc.querySelector("main");
  if (!main) return;

  // Times: the reader's local time; the UTC time on hover.
  var times = doc.querySelectorAll("time[datetime]");
  for (var i = 0; i < times.length; i++) {
    var t = times[i];
    var d = new Date(t.getAttribute("datetime"));
    if (isNaN(d)) continue;
    t.title = t.textContent;
    t.textContent = t.closest(".turn-h") ? d.toLocaleTimeString()
      : t.classList.contains("end") ? d.toLocaleTimeString(undefined, { timeStyle: "short" })
      : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  }
  // `/` anywhere but in a field goes to the search box, as on GitHub; Escape there leaves it.
  doc.addEventListener("keydown", function (e) {
    var box = doc.getElementById("q"), at = e.target;
    if (!box || box.closest("[hidden]") || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "/" && !(at.closest && at.closest("input, textarea, select, [contenteditable]"))) {
      e.preventDefault();
      box.focus();
      box.select();
    } else if (e.key === "Escape" && at === box) {
      box.blur();
    }
  });
  // The archive index: the search box filters the sessions by the words each row carries.
  if (doc.body.classList.contains("archive")) {
    var abox = doc.getElementById("search"), aq = doc.getElementById("q");
    var acount = doc.getElementById("qcount");
    var rows = main.querySelectorAll("tr[data-s]"), sections = main.querySelectorAll("section.project");
    abox.hidden = false;
    aq.addEventListener("input", function () {
      var needle = aq.value.trim().toLowerCase(), shown = 0;
      for (var i = 0; i < rows.length; i++) {
        var hit = !needle || rows[i].getAttribute("data-s").indexOf(needle) >= 0;
        rows[i].hidden = !hit;
        if (hit) shown++;
      }
      for (var j = 0; j < sections.length; j++) {
        sections[j].hidden = !sections[j].querySelector("tr[data-s]:not([hidden])");
      }
      acount.textContent = needle ? shown + " of " + rows.length + " sessions" : "";
    });
    return;
  }
  // Each timeline mark shows on hover the line of the list that names it.
  var named = doc.querySelectorAll("svg.timeline a[aria-labelledby]");
  for (var n = 0; n < named.length; n++) {
    var line = doc.getElementById(named[n].getAttribute("aria-labelledby"));
    var tip = doc.createElementNS("http://www.w3.org/2000/svg", "title");
    tip.textContent = line ? line.textContent : "";
    named[n].insertBefore(tip, named[n].firstChild);
  }
  // The overview and the prompt index are written after the transcript (the page streams) and
  // shown above it: moved before it, Tab reaches them in the order they are read.
  var overview = doc.querySelector("section.map"), prompts = doc.querySelector("nav.prompts");
  if (prompts) main.parentNode.insertBefore(prompts, main);
  if (overview) main.parentNode.insertBefore(overview, prompts || main);
  var h1 = doc.querySelector(".map h1");
  if (h1) doc.title = h1.textContent + " · scribe";

  // A link to a place inside folded cards opens them.
  function reveal(el) {
    for (var d = el.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) {
      d.open = true;
    }
  }
  function follow() {
    // A malformed fragment (`#%`) is taken as it is written: decoding it throws, and nothing
    // after this point (search, expand/collapse) may depend on the address being well formed.
    var id = location.hash.slice(1);
    try {
      id = decodeURIComponent(id);
    } catch (e) {}
    var el = id && doc.getElementById(id);
    if (!el) return;
    reveal(el);
    el.scrollIntoView();
  }
  window.addEventListener("hashchange", follow);
  if (location.hash) follow();

  // Expand all / collapse all.
  var tools = doc.getElementById("tools");
  function all(open) {
    var ds = doc.querySelectorAll("details");
    for (var i = 0; i < ds.length; i++) ds[i].open = open;
  }
  if (tools) {
    tools.hidden = false;
    doc.getElementById("expand").addEventListener("click", function () { all(true); });
    doc.getElementById("collapse").addEventListener("click", function () { all(false); });
  }

  // Search: the units a reader looks for, each with its kind. Their text is read once (on first
  // use) into one lower-case string, units separated by NUL; a query is then a few indexOf calls
  // over it (one per matching unit), and a binary search maps a hit back to its unit.
  var box = doc.getElementById("search");
  var q = doc.getElementById("q");
  var count = doc.getElementById("qcount");
  if (!box || !q) return;
  box.hidden = false;
  var kinds = box.querySelectorAll(".kinds input");
  var units = null, starts = [], text = "", matches = [], cur = -1, needle = "", timer = 0;
  var MAX_MARKS = 200;
  // What the last step marked (so that undoing it touches those nodes only, never a scan of a
  // page that may hold a million elements).
  var marked = [], curEl = null;

  function build() {
    units = [];
    var parts = [], at = 0;
    var els = main.querySelectorAll(
      "article.o-user > .plain, article.o-replay > .plain, article.assistant > .md, details.tool, " +
      ".notice.error, .api-error");
    for (var i = 0; i < els.length; i++) {
      var el = els[i];
      var kind = el.matches(".plain") ? "prompt" : el.matches(".md") ? "text"
        : el.matches("details.st-error, details.st-denied, .notice, .api-error") ? "error" : "tool";
      var t = el.textContent.toLowerCase();
      units.push({ el: el, kind: kind });
      starts.push(at);
      parts.push(t);
      at += t.length + 1;
    }
    starts.push(at);
    text = parts.join("\u0000");
  }

  // The unit whose text holds offset `at`.
  function unitAt(at) {
    var lo = 0, hi = units.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  function unmark() {
    if (curEl) curEl.classList.remove("cur");
    curEl = null;
    var parents = [];
    for (var i = 0; i < marked.length; i++) {
      var m = marked[i], parent = m.parentNode;
      if (!parent) continue;
      parent.replaceChild(doc.createTextNode(m.textContent), m);
      if (parents.indexOf(parent) < 0) parents.push(parent);
    }
    parents.forEach(function (p) { p.normalize(); });
    marked = [];
  }

  function mark(el) {
    var walker = doc.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    var hits = [], node;
    while ((node = walker.nextNode()) && hits.length < MAX_MARKS) {
      var v = node.nodeValue;
      if (v.toLowerCase().length === v.length && v.toLowerCase().indexOf(needle) >= 0) hits.push(node);
    }
    hits.forEach(function (n) {
      var text = n.nodeValue, lower = text.toLowerCase(), frag = doc.createDocumentFragment();
      var at = 0, i;
      while ((i = lower.indexOf(needle, at)) >= 0) {
        frag.appendChild(doc.createTextNode(text.slice(at, i)));
        var m = doc.createElement("mark");
        m.className = "hit";
        m.textContent = text.slice(i, i + needle.length);
        frag.appendChild(m);
        marked.push(m);
        at = i + needle.length;
      }
      frag.appendChild(doc.createTextNode(text.slice(at)));
      n.parentNode.replaceChild(frag, n);
    });
  }

  function show(i) {
    unmark();
    if (!matches.length) return;
    cur = (i + matches.length) % matches.length;
    var el = matches[cur].el;
    reveal(el);
    if (el.localName === "details") el.open = true;
    el.classList.add("cur");
    curEl = el;
    mark(el);
    // On a long page every item is laid out only near the screen, and asking where a place
    // inside an item not laid out yet is costs a forced layout (a quarter second on a 100 MB
    // session's page). So the step scrolls to the item that holds the match (whose box is
    // known), and the exact place follows once the browser has drawn it.
    var top = el;
    while (top.parentElement && top.parentElement !== main) top = top.parentElement;
    window.scrollTo(0, top.getBoundingClientRect().top + window.scrollY - 80);
    requestAnimationFrame(function () {
      setTimeout(function () {
        if (curEl === el) el.scrollIntoView({ block: "center" });
      }, 0);
    });
    count.textContent = cur + 1 + " of " + matches.length;
  }

  function run() {
    clearTimeout(timer);
    timer = 0;
    if (!units) build();
    needle = q.value.trim().toLowerCase();
    var want = {};
    for (var k = 0; k < kinds.length; k++) want[kinds[k].value] = kinds[k].checked;
    matches = [];
    if (needle) {
      var i = text.indexOf(needle);
      while (i >= 0) {
        var u = unitAt(i);
        if (want[units[u].kind]) matches.push(units[u]);
        i = text.indexOf(needle, starts[u + 1]);
      }
    }
    cur = -1;
    unmark();
    count.textContent = needle ? (matches.length ? matches.length + " found" : "no match") : "";
    if (matches.length) show(0);
  }

  q.addEventListener("focus", function () { if (!units) build(); });
  q.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(run, 150);
  });
  q.addEventListener("keydown", function (e) {
    if (e.key === "Enter") {
      if (timer) run();
      else show(cur + (e.shiftKey ? -1 : 1));
    } else if (e.key === "Escape") {
      q.value = "";
      run();
    }
  });
  for (var k = 0; k < kinds.length; k++) kinds[k].addEventListener("change", run);
  doc.getElementById("qnext").addEventListener("click", function () { timer ? run() : show(cur + 1); });
  doc.getElementById("qprev").addEventListener("click", function () { timer ? run() : show(cur - 1); });

  // Printing shows every toggle opened, then restores them.
  var opened = [];
  window.addEventListener("beforeprint", function () {
    var closed = doc.querySelectorAll("details:not([open])");
    for (var i = 0; i < closed.length; i++) {
      closed[i].open = true;
      opened.push(closed[i]);
    }
  });
  window.addEventListener("afterprint", function () {
    opened.forEach(function (d) { d.open = false; });
    opened = [];
  });
})();
