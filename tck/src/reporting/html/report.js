// Filters of the HTML report: keeps the results whose status, binding, version and level
// match the selects. The URL fragment holds the filter (#status=FAIL&binding=rest), so a
// link opens the page filtered. Sets data-shown and data-ready on <body>; errors of this
// script are noted in data-errors.
(function () {
  "use strict";
  var body = document.body;
  window.addEventListener("error", function (event) {
    body.setAttribute("data-errors", (body.getAttribute("data-errors") || "") + event.message + "\n");
  });
  var form = document.getElementById("filters");
  if (!form) {
    body.setAttribute("data-ready", "1");
    return;
  }
  var names = ["status", "binding", "version", "level"];
  var results = Array.prototype.slice.call(document.querySelectorAll("details.result"));
  var count = document.getElementById("shown-count");

  function wanted(name) {
    return form.elements[name].value;
  }

  function keeps(result) {
    return names.every(function (name) {
      var want = wanted(name);
      var have = result.getAttribute("data-" + name);
      if (want === "") return true;
      if (want === "!PASS") return have !== "PASS";
      return have === want;
    });
  }

  function apply() {
    var shown = 0;
    results.forEach(function (result) {
      var keep = keeps(result);
      result.hidden = !keep;
      if (keep) shown += 1;
    });
    count.textContent = shown + " of " + results.length;
    body.setAttribute("data-shown", String(shown));
    var params = new URLSearchParams();
    names.forEach(function (name) {
      if (wanted(name)) params.set(name, wanted(name));
    });
    var fragment = params.toString();
    try {
      history.replaceState(null, "", fragment ? "#" + fragment : location.pathname + location.search);
    } catch (ignored) {
      // Some viewers refuse to rewrite the URL; the filter still applies.
    }
  }

  var initial = new URLSearchParams(location.hash.replace(/^#/, ""));
  names.forEach(function (name) {
    var value = initial.get(name);
    var select = form.elements[name];
    var known = Array.prototype.some.call(select.options, function (option) {
      return option.value === value;
    });
    if (value !== null && known) select.value = value;
  });
  form.addEventListener("change", apply);
  apply();
  body.setAttribute("data-ready", "1");
})();
