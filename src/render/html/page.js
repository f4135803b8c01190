// scribe transcript page: search and print. Inlined; allowed by the page's CSP through its
// SHA-256 hash. Everything works from file:// and the page is complete without it.
(function () {
  "use strict";
  var box = document.getElementById("search");
  var q = document.getElementById("q");
  var count = document.getElementById("qcount");
  var main = document.querySelector("main");
  if (!box || !q || !main) return;
  box.hidden = false;
  var MAX_HIGHLIGHTED = 300;
  var timer = 0;

  function unmark() {
    var marks = main.querySelectorAll("mark.hit");
    for (var i = 0; i < marks.length; i++) {
      var m = marks[i];
      var parent = m.parentNode;
      parent.replaceChild(document.createTextNode(m.textContent), m);
      parent.normalize();
    }
  }

  function mark(el, needle) {
    var walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    var hits = [];
    var node;
    while ((node = walker.nextNode())) {
      var v = node.nodeValue;
      if (v.toLowerCase().length === v.length && v.toLowerCase().indexOf(needle) >= 0) hits.push(node);
    }
    hits.forEach(function (n) {
      var text = n.nodeValue;
      var lower = text.toLowerCase();
      var frag = document.createDocumentFragment();
      var at = 0;
      var i;
      while ((i = lower.indexOf(needle, at)) >= 0) {
        frag.appendChild(document.createTextNode(text.slice(at, i)));
        var m = document.createElement("mark");
        m.className = "hit";
        m.textContent = text.slice(i, i + needle.length);
        frag.appendChild(m);
        at = i + needle.length;
      }
      frag.appendChild(document.createTextNode(text.slice(at)));
      var details = n.parentNode.closest("details");
      n.parentNode.replaceChild(frag, n);
      while (details) {
        details.open = true;
        details = details.parentElement && details.parentElement.closest("details");
      }
    });
  }

  function run() {
    unmark();
    var needle = q.value.trim().toLowerCase();
    var items = main.children;
    var shown = 0;
    for (var i = 0; i < items.length; i++) {
      var item = items[i];
      if (!needle) {
        item.hidden = false;
        continue;
      }
      var hit = item.textContent.toLowerCase().indexOf(needle) >= 0;
      item.hidden = !hit;
      if (hit) {
        shown++;
        if (shown <= MAX_HIGHLIGHTED) mark(item, needle);
      }
    }
    count.textContent = needle ? shown + " of " + items.length + " match" : "";
  }

  q.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(run, 150);
  });
  q.addEventListener("keydown", function (e) {
    if (e.key === "Escape") {
      q.value = "";
      run();
    }
  });

  // Printing shows every card and toggle opened, then restores them.
  var opened = [];
  window.addEventListener("beforeprint", function () {
    var closed = document.querySelectorAll("details:not([open])");
    for (var i = 0; i < closed.length; i++) {
      closed[i].open = true;
      opened.push(closed[i]);
    }
  });
  window.addEventListener("afterprint", function () {
    opened.forEach(function (d) {
      d.open = false;
    });
    opened = [];
  });
})();
