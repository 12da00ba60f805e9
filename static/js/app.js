// MultipliPotion: the few lines of our own JavaScript. Everything else is htmx.
(function () {
  "use strict";
  // Move keyboard focus to content swapped in by htmx that asks for it (data-autofocus),
  // so keyboard and screen-reader users land on the new step.
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.elt && event.detail.elt.querySelector
      ? event.detail.elt.querySelector("[data-autofocus]")
      : null;
    if (target) {
      target.focus();
    }
  });
})();
