// Filters of the HTML report: keeps the results whose status, binding, version and level
// match the selects, and whose check id starts with one of the comma-separated prefixes of
// the check field. The URL fragment holds the filter (#status=FAIL&binding=rest&check=push.),
// so a link opens the page filtered (the results site links each cell of its matrix so). Sets data-shown and data-ready on <body>; errors of this
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
  var names = ["status", "binding", "version", "level", "check"];
  var results = Array.prototype.slice.call(document.querySelectorAll("details.result"));
  var count = document.getElementById("shown-count");

  function wanted(name) {
    return form.elements[name].value;
  }

  function keeps(result) {
    return names.every(function (name) {
      var want = wanted(name);
      if (want === "") return true;
      if (name === "check") {
        var id = result.getAttribute("data-id");
        return want.split(",").some(function (prefix) {
          prefix = prefix.trim();
          return prefix !== "" && id.indexOf(prefix) === 0;
        });
      }
      var have = result.getAttribute("data-" + name);
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
    var field = form.elements[name];
    if (value === null) return;
    var known = !field.options || Array.prototype.some.call(field.options, function (option) {
      return option.value === value;
    });
    if (known) field.value = value;
  });
  form.addEventListener("change", apply);
  form.addEventListener("input", apply);
  form.addEventListener("submit", function (event) {
    event.preventDefault();
  });
  apply();
  body.setAttribute("data-ready", "1");
})();
