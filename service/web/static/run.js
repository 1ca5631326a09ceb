// The run page: a search that narrows the dataset list, the profile a dataset chooses (also
// on the compare page), and copy buttons for the owner link and token. Served by the service
// (the pages send a strict CSP: no inline scripts). The page works without it.
(function () {
  // A dataset chosen by the search or by a file chosen is chosen as a pick in the list is:
  // the select told with a change event, so the profile follows it too.
  function choose(select, value) {
    select.value = value;
    select.dispatchEvent(new Event("change"));
  }
  var search = document.getElementById("dataset-search");
  var select = document.getElementById("run-dataset");
  if (search && select) {
    search.addEventListener("input", function () {
      var words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      var first = null;
      select.querySelectorAll("option").forEach(function (option) {
        if (!option.value) return;
        var text = (option.textContent + " " + option.parentNode.label).toLowerCase();
        var shown = words.every(function (w) { return text.indexOf(w) >= 0; });
        option.hidden = !shown;
        if (shown && first === null) first = option;
      });
      select.querySelectorAll("optgroup").forEach(function (group) {
        group.hidden = !group.querySelector("option:not([hidden])");
      });
      if (first && select.selectedOptions[0] && select.selectedOptions[0].hidden) {
        choose(select, first.value);
      }
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
