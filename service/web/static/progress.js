// Live progress on an experiment page: polls experiment/{id}/status and updates the progress
// section in place; once the experiment is done, swaps in the page with its results (no
// reload). Without JavaScript the page reloads itself every few seconds instead.
(function () {
  var section = document.getElementById("progress");
  if (!section) return;
  var url = section.dataset.statusUrl;
  var active = ["reserved", "queued", "running"];
  var every = 1000;
  // What a screen reader is told, sparingly: a change of status or phase, each tenth of the
  // questions done, new errors, the end; never the clock (the summary ticks every second).
  // Outside <main>, which the results replace, so the end is still said.
  var announcer = document.createElement("p");
  announcer.id = "progress-announce";
  announcer.className = "visually-hidden";
  announcer.setAttribute("role", "status");
  document.body.appendChild(announcer);
  // Errors: the first, then at most once a minute unless said with a tenth or a new status
  // (a failing service made it "12 errors", "13 errors"… each second), the count at the end.
  var said = { status: section.dataset.status, phase: null, tenth: -1, errors: 0, errorsAt: 0 };
  var errorsNow = 0;
  var errorsEvery = 60000;
  var away = false;

  function announce(message) { announcer.textContent = message; }

  function tell(data) {
    var done = 0, total = 0, errors = 0;
    data.systems.forEach(function (s) { done += s.done; total += s.total; errors += s.errors; });
    var news = [];
    var now = Date.now();
    if (data.status !== said.status || (data.phase || null) !== said.phase) {
      news.push(data.status + (data.phase ? ", " + data.phase : ""));
    }
    var tenth = total ? Math.floor((10 * done) / total) : -1;
    if (tenth > said.tenth && total) news.push(done + " of " + total + " questions done");
    errorsNow = errors;
    if (errors > said.errors && (!said.errors || news.length || now - said.errorsAt >= errorsEvery)) {
      news.push(errors + (errors === 1 ? " error" : " errors"));
      said.errors = errors;
      said.errorsAt = now;
    }
    said.status = data.status;
    said.phase = data.phase || null;
    said.tenth = tenth;
    if (news.length) announce(news.join("; "));
  }

  function unreachable() {
    if (!away) announce("The server cannot be reached; trying again every few seconds.");
    away = true;
    document.getElementById("progress-message").textContent =
      "· the server cannot be reached; trying again every few seconds";
  }

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
    // A row is drawn anew only when what it shows changed: a screen reader reading the table
    // had its rows replaced under it each second, most often by the same ones.
    var rows = data.systems.map(function (s) {
      return { system: s, key: JSON.stringify([s.system, s.activity || s.state, s.done, s.total,
        s.errors, s.errorReasons.slice(0, 5)]) };
    });
    var old = Array.prototype.slice.call(body.rows);  // the page's own have no key: redrawn
    rows.forEach(function (r, i) {
      if (old[i] && old[i].dataset.key === r.key) return;
      var row = draw(r.system);
      row.dataset.key = r.key;
      if (old[i]) body.replaceChild(row, old[i]);
      else body.appendChild(row);
    });
    old.slice(rows.length).forEach(function (row) { body.removeChild(row); });
  }

  function draw(s) {
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
    return row;
  }

  // The finished page in place of this one: its title too, the end said, and the focus put
  // on its main content (the focused Cancel button went with the old one).
  function swapInResults(status) {
    fetch(window.location.href, { headers: { Accept: "text/html" }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error(String(response.status));
        return response.text();
      })
      .then(function (html) {
        var page = new DOMParser().parseFromString(html, "text/html");
        var main = page.querySelector("main");
        if (!main) throw new Error("no main");
        document.querySelector("main").replaceWith(main);
        document.title = page.title;
        main.focus();
        var end = status === "finished" ? "Finished: the results are below." : "The run ended: " + status + ".";
        if (errorsNow > said.errors) end += " " + errorsNow + (errorsNow === 1 ? " error" : " errors") + " in all.";
        announce(end);
      })
      .catch(function () { unreachable(); setTimeout(function () { swapInResults(status); }, every * 3); });
  }

  function poll() {
    fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (data) {
        if (!data) { unreachable(); setTimeout(poll, every * 3); return; }
        if (away) { away = false; announce("The server answers again."); }
        show(data);
        if (active.indexOf(data.status) >= 0) { tell(data); setTimeout(poll, every); }
        else swapInResults(data.status);
      })
      .catch(function () { unreachable(); setTimeout(poll, every * 3); });
  }

  if (active.indexOf(section.dataset.status) >= 0) setTimeout(poll, every);
})();
