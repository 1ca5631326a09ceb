// A table wider than its wrapper scrolls sideways: the wrapper becomes a region in the tab
// order, named shortly (below), so the arrow keys scroll it in any browser (Chromium focuses
// such a scroller by itself, unnamed; Safari does not, and left the table unscrollable by
// keyboard: explore59 F10; WCAG 2.1.1, 1.4.10). Undone when the table fits again; checked
// again on a resize, a <details> opened, and a part of the page swapped in (progress.js).
// Loaded with defer, its first check waits for the page's first frame: reading a width at once
// laid the page out before DOMContentLoaded (408 questions: 164 ms instead of 56; explore62 F1).
(function () {
  // The region's name: the template's data-region-label, else its caption's first sentence,
  // at most 60 characters, never a URI (a table of a resource's properties is captioned by the
  // resource's URI, a long caption was read whole and then again with the table: explore62 F2).
  function label(wrap) {
    if (wrap.dataset.regionLabel) return wrap.dataset.regionLabel;
    var caption = wrap.querySelector("caption");
    var text = caption ? caption.textContent.replace(/\s+/g, " ").trim() : "";
    text = text.split(/\.(?:\s|$)/)[0];
    if (text.length > 60) text = text.slice(0, 60).replace(/\s+\S*$/, "") + "…";
    return text && !/^[a-z][a-z0-9+.-]*:\S*$/i.test(text) ? text : "Table";
  }
  function mark() {
    Array.prototype.forEach.call(document.querySelectorAll(".table-wrap"), function (wrap) {
      var scrolls = wrap.scrollWidth > wrap.clientWidth + 1;
      if (scrolls === (wrap.dataset.scrolls === "yes")) return;
      if (scrolls) {
        wrap.dataset.scrolls = "yes";
        wrap.tabIndex = 0;
        wrap.setAttribute("role", "region");
        wrap.setAttribute("aria-label", label(wrap));
      } else {
        delete wrap.dataset.scrolls;
        wrap.removeAttribute("tabindex");
        wrap.removeAttribute("role");
        wrap.removeAttribute("aria-label");
      }
    });
  }
  var pending = null;
  function later() { clearTimeout(pending); pending = setTimeout(mark, 100); }
  // after DOMContentLoaded, in the first frame; again once loaded (images laid out)
  function first() { requestAnimationFrame(mark); }
  if (document.readyState === "complete") first();
  else document.addEventListener("DOMContentLoaded", first);
  window.addEventListener("load", mark);
  window.addEventListener("resize", later);
  document.addEventListener("toggle", later, true);  // a table in a <details> opened
  new MutationObserver(later).observe(document.body, { childList: true });  // main swapped in
})();
