// MultipliPotion: the few lines of our own JavaScript. Everything else is htmx.
(function () {
  "use strict";
  // After htmx swaps new content in, move keyboard focus to the control it marks with
  // data-autofocus (the next step), so keyboard and screen-reader users land on it.
  // (htmx:load fires on the new, attached content; search the page for the marker.)
  document.addEventListener("htmx:load", function () {
    var target = document.querySelector("[data-autofocus]");
    if (target && document.activeElement !== target) {
      target.focus();
    }
  });
})();
