// The potion warm-up's number pad and clock (templates/classroom/warmup/round.html).
// Without this script the answer box takes keyboard digits and Enter, and the server still
// decides when the time is up; with it the pad's keys type into the box and the clock ticks.
// An answer that finds the connection lost (503, or no answer) is sent again by app.js, as a
// move of the board is: the same token, so it counts once (docs/classroom/warm-up.md).
(function () {
  "use strict";

  function showPads() {
    document.querySelectorAll("[data-pad-key][hidden]").forEach(function (key) {
      key.hidden = false;
    });
  }
  document.addEventListener("DOMContentLoaded", showPads);
  document.addEventListener("htmx:load", showPads);
  showPads();

  document.addEventListener("click", function (event) {
    var key = event.target.closest && event.target.closest("[data-pad-key]");
    if (!key) return;
    var form = key.closest("form");
    var input = form && form.querySelector("input[name=answer]");
    if (!input) return;
    var value = key.dataset.padKey;
    if (value === "del") {
      input.value = input.value.slice(0, -1);
    } else if (input.value.length < (input.maxLength > 0 ? input.maxLength : 3)) {
      input.value += value;
    }
    input.dispatchEvent(new Event("input", { bubbles: true }));
  });

  // The time left, as the server gave it with the question, counted down each second.
  window.setInterval(function () {
    document.querySelectorAll("[data-seconds-left]").forEach(function (clock) {
      var left = Math.max(0, parseInt(clock.dataset.secondsLeft, 10) - 1);
      clock.dataset.secondsLeft = String(left);
      var face = clock.querySelector("[data-clock]");
      if (face) {
        face.textContent = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
      }
    });
  }, 1000);
})();
