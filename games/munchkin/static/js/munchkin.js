// Munchkin: the visible countdown of a person's "anyone?" window. When it runs out the board
// presses this person's "pass" button (a normal form post: it works the same without us).
(function () {
  "use strict";
  if (window.munchkinCountdown) {
    return;
  }
  window.munchkinCountdown = true;
  window.setInterval(function () {
    var clock = document.querySelector("[data-countdown]");
    if (!clock) {
      return;
    }
    var left = parseInt(clock.getAttribute("data-countdown"), 10) - 1;
    clock.setAttribute("data-countdown", String(left));
    // The clock in the status column, and its copy above the hand (seen while choosing a card).
    document.querySelectorAll(".mk-seconds").forEach(function (out) {
      out.textContent = String(Math.max(left, 0));
    });
    if (left <= 0) {
      clock.removeAttribute("data-countdown");
      var pass = document.querySelector("[data-autopass]");
      if (pass) {
        pass.click();
      }
    }
  }, 1000);
})();
