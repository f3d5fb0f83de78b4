// The results site's matrix. On index.html its rows are written from the compact data of
// #matrix-data (one string of HTML set at once: one parse, one layout of the table); all.html has
// them written out. Filters: every agent, those failing (their gate did not pass), those
// whose results changed since the run before, or the clients (a survey's [[client]]s); and a
// text filter on the agent's name. One pass
// over the rows per change, touching only the rows whose visibility changes. The URL fragment
// holds the filter (#show=failing&q=acme), so a link opens the matrix filtered. Sets on <body>:
// data-shown (rows shown), data-filter-ms (the last filtering's time), data-loaded-ms
// (performance.now() once the rows are written, filtered as the URL asks and laid out) and
// data-ready; errors of this script are noted in data-errors.
(function () {
  "use strict";
  var body = document.body;
  window.addEventListener("error", function (event) {
    body.setAttribute("data-errors", (body.getAttribute("data-errors") || "") + event.message + "\n");
  });
  var form = document.getElementById("filters");
  var tbody = document.getElementById("agents");
  var data = document.getElementById("matrix-data");
  if (data) write(JSON.parse(data.textContent));
  var rows = tbody.rows;
  var count = document.getElementById("shown-count");
  var n = rows.length;
  var names = new Array(n);
  var failing = new Array(n);
  var changed = new Array(n);
  var clients = new Array(n);
  var shownNow = new Array(n);
  for (var i = 0; i < n; i++) {
    names[i] = rows[i].getAttribute("data-name");
    failing[i] = rows[i].hasAttribute("data-failing");
    changed[i] = rows[i].hasAttribute("data-changed");
    clients[i] = rows[i].hasAttribute("data-client");
    shownNow[i] = true;
  }

  function esc(text) {
    return String(text).replace(/[&<>"]/g, function (c) {
      return c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&quot;";
    });
  }

  // The rows as all.html writes them: [name, folder, report folder, verdict, flags (1 failing,
  // 2 changed, 4 a client), the "since last run" cell's HTML, date, cells...], a cell being its
  // words or "".
  function write(matrix) {
    var classes = { PASS: "s-pass", FAIL: "s-fail", WARN: "s-warn", "N/A": "s-na",
      UNTESTABLE: "s-untestable", ERROR: "s-error" };
    var columns = matrix.columns;
    var html = [];
    for (var r = 0; r < matrix.rows.length; r++) {
      var row = matrix.rows[r];
      var name = esc(row[0]);
      var dir = esc(row[2]);
      var flags = row[4];
      var out = '<tr data-name="' + esc(String(row[0]).toLowerCase()) + '"' +
        (flags & 1 ? " data-failing" : "") + (flags & 2 ? " data-changed" : "") +
        (flags & 4 ? " data-client" : "") +
        '><th scope="row"><a href="agents/' + esc(row[1]) + '/index.html">' + name +
        "</a>" + (flags & 4 ? ' <span class="kind">client</span>' : "") +
        '</th><td class="v v-' + esc(row[3]) + '">' + esc(row[3]) + "</td><td>" + row[5] +
        "</td><td>" + esc(row[6]) + "</td>";
      for (var c = 0; c < columns.length; c++) {
        var words = row[7 + c];
        if (!words) {
          out += '<td class="c none"><span aria-hidden="true">\u2013</span><span class="sr">not tested</span></td>';
          continue;
        }
        var status = classes[words.split(" ")[0]] || "s-na";
        out += dir
          ? '<td class="c ' + status + '"><a href="' + dir + "report.html#" + esc(columns[c]) + '">' + esc(words) + "</a></td>"
          : '<td class="c ' + status + '">' + esc(words) + "</td>";
      }
      html.push(out + "</tr>");
    }
    tbody.innerHTML = html.join("");
  }

  function apply() {
    var start = performance.now();
    var show = form.elements.show.value || "all";
    var q = form.elements.q.value.trim().toLowerCase();
    var shown = 0;
    for (var i = 0; i < n; i++) {
      var state = show === "failing" ? failing[i] : show === "clients" ? clients[i] : changed[i];
      var keep = (show === "all" || state) &&
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
  // The table laid out (a read of its height forces it), so the time is that of a usable page.
  body.setAttribute("data-height", String(document.getElementById("matrix").offsetHeight));
  body.setAttribute("data-loaded-ms", performance.now().toFixed(1));
  body.setAttribute("data-ready", "1");
})();
