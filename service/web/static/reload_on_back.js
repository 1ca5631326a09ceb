// An owner's page with a form (publish, cancel, withdraw, reveal, re-score): Back after its
// post restored it from the browser's back/forward cache as it was, its form still offered,
// despite Cache-Control: no-store (Chromium). Such a restored page is read again from the
// server, which says what is true now. Without JavaScript the page is the same, read as is.
window.addEventListener("pageshow", function (event) {
  if (event.persisted) {
    window.location.reload();
  }
});
