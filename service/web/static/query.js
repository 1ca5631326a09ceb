// Example buttons fill the query box (no inline scripts: the pages send a strict CSP).
document.querySelectorAll("button[data-example]").forEach(function (button) {
  button.addEventListener("click", function () {
    var box = document.getElementById("query");
    box.value = document.getElementById(button.dataset.example).textContent;
    box.focus();
  });
});
