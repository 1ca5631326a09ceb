// Live progress on an experiment page: polls experiment/{id}/status and updates the progress
// section in place; once the experiment is done, swaps in the page with its results (no
// reload). Without JavaScript the page reloads itself every few seconds instead.
(function () {
  var section = document.getElementById("progress");
  if (!section) return;
  var url = section.dataset.statusUrl;
  var active = ["reserved", "queued", "running"];
  var every = 1000;

  function text(parent, tag, value, cls) {
    var node = document.createElement(tag);
    node.textContent = value;
    if (cls) node.className = cls;
    parent.appendChild(node);
    return node;
  }

  function show(data) {
    var status = document.getElementById("progress-status");
    status.textContent = data.status;
    status.className = "status status-" + data.status;
    document.getElementById("progress-phase").textContent = data.phase ? "· " + data.phase : "";
    var time = "";
    if (data.elapsedSeconds !== null && data.elapsedSeconds !== undefined) {
      time = "· " + Math.round(data.elapsedSeconds) + " s elapsed";
      if (data.remainingSeconds !== null && data.remainingSeconds !== undefined) {
        time += ", about " + Math.round(data.remainingSeconds) + " s left";
      }
    }
    document.getElementById("progress-time").textContent = time;
    document.getElementById("progress-message").textContent = data.message ? "· " + data.message : "";
    var body = document.querySelector("#progress-table tbody");
    if (!data.systems.length) return;
    body.textContent = "";
    data.systems.forEach(function (s) {
      var row = document.createElement("tr");
      var head = text(row, "th", s.system);
      head.scope = "row";
      text(row, "td", s.activity || s.state);  // "read" for an answer file, not "asking"
      var done = text(row, "td", s.total ? "" : "–", "num");  // nothing counted yet: no 0/0
      if (s.total) {
        var bar = document.createElement("progress");
        bar.max = s.total;
        bar.value = s.done;
        bar.setAttribute("aria-label", s.system + ": " + s.done + " of " + s.total + " questions");
        done.appendChild(bar);
        done.appendChild(document.createTextNode(" " + s.done + "/" + s.total));
      }
      text(row, "td", String(s.errors), "num");
      var why = document.createElement("td");
      if (s.errorReasons.length) {
        var list = text(why, "ul", "", "answers");
        s.errorReasons.slice(0, 5).forEach(function (e) {
          text(list, "li", e.question + ": " + e.reason);
        });
      }
      row.appendChild(why);
      body.appendChild(row);
    });
  }

  function swapInResults() {
    fetch(window.location.href, { headers: { Accept: "text/html" }, credentials: "same-origin" })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        var page = new DOMParser().parseFromString(html, "text/html");
        var main = page.querySelector("main");
        if (main) document.querySelector("main").replaceWith(main);
      });
  }

  function poll() {
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) {
        if (!data) { setTimeout(poll, every * 3); return; }
        show(data);
        if (active.indexOf(data.status) >= 0) setTimeout(poll, every);
        else swapInResults();
      })
      .catch(function () { setTimeout(poll, every * 3); });
  }

  if (active.indexOf(section.dataset.status) >= 0) setTimeout(poll, every);
})();
