// Task selector, sortable tables and variety search. Reads only the page itself (no network).
(function () {
  "use strict";
  var meta = JSON.parse(document.getElementById("report-meta").textContent);
  var select = document.getElementById("task-select");
  var search = document.getElementById("variety-search");
  var count = document.getElementById("search-count");

  function panels() { return document.querySelectorAll("section.task-panel"); }

  function showTask(task) {
    if (meta.tasks.indexOf(task) < 0) { task = meta.tasks[0]; }
    panels().forEach(function (p) { p.hidden = p.getAttribute("data-task") !== task; });
    select.value = task;
    if (history.replaceState) { history.replaceState(null, "", "#" + encodeURIComponent(task)); }
    applySearch();
  }

  function compare(a, b, numeric) {
    if (a === "" && b === "") { return 0; }
    if (a === "") { return 1; }            // missing results sort last in both directions
    if (b === "") { return -1; }
    if (numeric) { return parseFloat(a) - parseFloat(b); }
    return a.localeCompare(b);
  }

  function sortBy(th) {
    var table = th.closest("table");
    var index = Array.prototype.indexOf.call(th.parentNode.children, th);
    var numeric = th.getAttribute("data-numeric") === "true";
    var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    table.querySelectorAll("thead th").forEach(function (h) { h.setAttribute("aria-sort", "none"); });
    th.setAttribute("aria-sort", dir);
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (r1, r2) {
      var a = r1.cells[index].getAttribute("data-sort"), b = r2.cells[index].getAttribute("data-sort");
      if (a === "" || b === "") { return compare(a, b, numeric); }
      var c = compare(a, b, numeric);
      return dir === "ascending" ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }

  function applySearch() {
    var q = search.value.trim().toLocaleLowerCase();
    var shown = 0, total = 0, counted = false;
    document.querySelectorAll("table.searchable").forEach(function (table) {
      var visible = !table.closest("[hidden]");
      var n = 0, m = 0;
      Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
        var name = (row.getAttribute("data-variety") || "").toLocaleLowerCase();
        row.hidden = q !== "" && name.indexOf(q) < 0;
        m += 1; if (!row.hidden) { n += 1; }
      });
      if (visible && !counted) { shown = n; total = m; counted = true; }
    });
    count.textContent = q === "" ? "" : shown + " of " + total + " varieties match";
  }

  document.querySelectorAll("table.sortable th button.sort").forEach(function (b) {
    b.addEventListener("click", function () { sortBy(b.parentNode); });
  });
  select.addEventListener("change", function () { showTask(select.value); });
  search.addEventListener("input", applySearch);
  showTask(decodeURIComponent((location.hash || "").slice(1)) || meta.tasks[0]);
}());
