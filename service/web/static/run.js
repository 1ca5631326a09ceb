// The run page: a search that narrows the dataset list, the profile a dataset chooses (also
// on the compare page), and copy buttons for the owner link and token. Served by the service
// (the pages send a strict CSP: no inline scripts). The page works without it.
(function () {
  // A refused submission comes back with why above the form: the reader is taken there (an
  // alert already in the page when it loads is not said, and the form is far below it)
  var refused = document.querySelector(".notice.error[role=alert]");
  if (refused) refused.focus();
  // the compare form posts to #result: the browser's move to it, after the load, took the
  // focus off the notice again (explore48 1)
  if (refused && location.hash) {
    window.addEventListener("load", function () {
      setTimeout(function () { refused.focus(); }, 0);
    });
  }
  // A dataset chosen by the search or by a file chosen is chosen as a pick in the list is:
  // the select told with a change event, so the profile follows it too.
  var byScript = false;  // a change this script makes, not the reader's pick
  function choose(select, value) {
    select.value = value;
    byScript = true;
    try { select.dispatchEvent(new Event("change")); } finally { byScript = false; }
  }
  var search = document.getElementById("dataset-search");
  var select = document.getElementById("run-dataset");
  var said = document.getElementById("dataset-search-status");
  // The match a name typed means: the dataset of that name, else the shortest name that starts
  // with it (the current dataset, not a dated history version listed before it), else the
  // first in the list; of an upload's versions (their names alike), one without a newer
  // version (data-newer): a shared task's title chose its outdated v1, listed first.
  function best(matches, typed) {
    var named = matches.filter(function (o) { return o.value.toLowerCase() === typed; })[0];
    if (named) return named;
    var current = matches.filter(function (o) { return !o.dataset.newer; });
    var pool = current.length ? current : matches;
    var starting = pool.filter(function (o) { return o.value.toLowerCase().indexOf(typed) === 0; });
    starting.sort(function (a, b) { return a.value.length - b.value.length; });
    return starting[0] || pool[0] || null;
  }
  // what the status says of the choice: an old version says so (the list's label does, out
  // of a screen reader's sight)
  function chosen(option) {
    if (!option) return select.value;
    return option.value + (option.dataset.newer ? ", an old version (its newer one: " + option.dataset.newer + ")" : "");
  }
  if (search && select) {
    // the choice made before the search: back when nothing matches (a keystroke's match
    // stayed chosen, and the run went to a dataset never picked)
    var before = null;
    select.addEventListener("change", function () {  // picked by hand during a search: kept
      if (!byScript && before !== null) before = select.value;
    });
    search.addEventListener("input", function () {
      var typed = search.value.trim().toLowerCase();
      var words = typed.split(/\s+/).filter(Boolean);
      if (before === null) before = select.value;
      var matches = [];
      select.querySelectorAll("option").forEach(function (option) {
        if (!option.value) return;
        var text = (option.textContent + " " + option.parentNode.label).toLowerCase();
        var shown = words.every(function (w) { return text.indexOf(w) >= 0; });
        option.hidden = !shown;
        if (shown) matches.push(option);
      });
      select.querySelectorAll("optgroup").forEach(function (group) {
        group.hidden = !group.querySelector("option:not([hidden])");
      });
      var pick = best(matches, typed);
      if (pick && words.length && select.value !== pick.value) choose(select, pick.value);
      // nothing matches: the choice from before the search (a found one stays once emptied)
      if (words.length && !matches.length && select.value !== before) choose(select, before);
      if (!words.length) before = null;
      // said to a screen reader too: the list's choice changes out of its sight
      if (said) {
        said.textContent = !words.length ? "" : matches.length
          ? matches.length + " matching; chosen: " + chosen(select.selectedOptions[0])
          : "no dataset matches; chosen: " + chosen(select.selectedOptions[0]);
      }
    });
    // Enter in the search chooses, it does not send the whole form (a run on the first match)
    search.addEventListener("keydown", function (event) {
      if (event.key === "Enter") event.preventDefault();
    });
  }
  // A dataset with a profile made for it (PolEval: poleval, TEXT2SPARQL'25: text2sparql)
  // chooses that profile, until the profile is chosen by hand; another dataset puts the
  // default back. The run page and the compare page alike.
  [["run-dataset", "run-profile"], ["cmp-dataset", "cmp-profile"]].forEach(function (ids) {
    var datasets = document.getElementById(ids[0]);
    var profile = document.getElementById(ids[1]);
    if (!profile || !datasets) return;
    var byHand = false;
    profile.addEventListener("change", function () { byHand = true; });
    datasets.addEventListener("change", function () {
      var option = datasets.selectedOptions[0];
      if (byHand || !option) return;
      profile.value = option.dataset.profile || profile.dataset.default;
    });
  });
  // A dataset file chosen means that file: the list, which starts at the demo, lets it go
  // (on the compare page too, where the list kept a dataset and the submission was refused).
  [["run-dataset-file", "run-dataset"], ["cmp-dataset-file", "cmp-dataset"]].forEach(function (ids) {
    var file = document.getElementById(ids[0]);
    var list = document.getElementById(ids[1]);
    if (!file || !list) return;
    file.addEventListener("change", function () {
      if (file.files.length) choose(list, "");
    });
  });
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      var field = document.getElementById(button.dataset.copy);
      var status = document.getElementById("copy-status");
      field.select();
      var done = function () { if (status) status.textContent = "Copied."; };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(field.value).then(done, function () {
          document.execCommand("copy");
          done();
        });
      } else {
        document.execCommand("copy");
        done();
      }
    });
  });
})();
