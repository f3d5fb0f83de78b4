// Filters of the results site's matrix: every agent, those failing (their gate did not pass),
// or those whose results changed since the run before; and a text filter on the agent's name.
// One pass over the rows per change, touching only the rows whose visibility changes. The URL
// fragment holds the filter (#show=failing&q=acme), so a link opens the matrix filtered. Sets
// on <body>: data-shown (rows shown), data-filter-ms (the last filtering's time), data-loaded-ms
// (performance.now() once the page is filtered as its URL asks) and data-ready; errors of this
// script are noted in data-errors.
(function () {
  "use strict";
  var body = document.body;
  window.addEventListener("error", function (event) {
    body.setAttribute("data-errors", (body.getAttribute("data-errors") || "") + event.message + "\n");
  });
  var form = document.getElementById("filters");
  var rows = document.getElementById("agents").rows;
  var count = document.getElementById("shown-count");
  var n = rows.length;
  var names = new Array(n);
  var failing = new Array(n);
  var changed = new Array(n);
  var shownNow = new Array(n);
  for (var i = 0; i < n; i++) {
    names[i] = rows[i].getAttribute("data-name");
    failing[i] = rows[i].hasAttribute("data-failing");
    changed[i] = rows[i].hasAttribute("data-changed");
    shownNow[i] = true;
  }

  function apply() {
    var start = performance.now();
    var show = form.elements.show.value || "all";
    var q = form.elements.q.value.trim().toLowerCase();
    var shown = 0;
    for (var i = 0; i < n; i++) {
      var keep = (show === "all" || (show === "failing" ? failing[i] : changed[i])) &&
        (q === "" || names[i].indexOf(q) !== -1);
      if (keep !== shownNow[i]) {
        rows[i].hidden = !keep;
        shownNow[i] = keep;
      }
      if (keep) shown += 1;
    }
    count.textContent = shown + " of " + n + " agents shown";
    body.setAttribute("data-shown", String(shown));
    body.setAttribute("data-filter-ms", (performance.now() - start).toFixed(1));
    var params = new URLSearchParams();
    if (show !== "all") params.set("show", show);
    if (q !== "") params.set("q", q);
    var fragment = params.toString();
    try {
      history.replaceState(null, "", fragment ? "#" + fragment : location.pathname + location.search);
    } catch (ignored) {
      // Some viewers refuse to rewrite the URL; the filter still applies.
    }
  }

  var initial = new URLSearchParams(location.hash.replace(/^#/, ""));
  var wanted = initial.get("show");
  Array.prototype.forEach.call(form.elements.show, function (radio) {
    if (radio.value === wanted) radio.checked = true;
  });
  if (initial.get("q") !== null) form.elements.q.value = initial.get("q");
  form.addEventListener("change", apply);
  form.addEventListener("input", apply);
  form.addEventListener("submit", function (event) {
    event.preventDefault();
  });
  apply();
  body.setAttribute("data-loaded-ms", performance.now().toFixed(1));
  body.setAttribute("data-ready", "1");
})();
