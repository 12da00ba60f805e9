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
  // Capturing: the monsters come before your potions on the page, so once the second
  // potion is ticked from the keyboard, go up to the first monster to tap (not on to
  // "End my turn", which would give the capture away).
  document.addEventListener("change", function (event) {
    var box = event.target;
    if (!box.matches || !box.matches(".area-me input[name=potions]")) return;
    if (document.querySelectorAll(".area-me input[name=potions]:checked").length !== 2) return;
    var monster = document.querySelector(".area-them .slot-target");
    var pointer = (box.closest("label") || box).matches(":hover");
    if (monster && event.isTrusted && box === document.activeElement && !pointer) {
      monster.focus();
    }
  });
  // A new school's time zone (sign-up): the browser's own, when the list has it. Without
  // JavaScript the field keeps the site's default, and the teacher picks from the list.
  function browserZone(root) {
    var zone = "";
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { return; }
    root.querySelectorAll("select[data-browser-zone]").forEach(function (select) {
      if (zone && select.querySelector('option[value="' + zone.replace(/"/g, "") + '"]')) {
        select.value = zone;
      }
      select.removeAttribute("data-browser-zone");
    });
  }
  document.addEventListener("DOMContentLoaded", function () { browserZone(document); });
  document.addEventListener("htmx:load", function (event) { browserZone(event.target); });
})();
