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
  // Live boards (docs/platform.md, "Live updates"): a pushed board's poller listens on its
  // stream (htmx's sse extension). Its own move's echo is not fetched again. When the stream
  // says nothing (no event, no heartbeat) for data-live-stale ms, as behind a proxy that holds
  // it back, the board closes it, polls every data-live-poll as before and, after
  // data-live-retry ms, tries a fresh stream.
  function hear(poller) { poller.liveHeard = Date.now(); }
  function watch(event) {
    var poller = event.target, source = event.detail && event.detail.source;
    if (!poller.dataset || !poller.dataset.liveStale || !source || poller.liveSource === source) return;
    poller.liveSource = source;
    source.addEventListener("beat", function () { hear(poller); });
    source.addEventListener("changed", function () { hear(poller); });
  }
  document.addEventListener("htmx:sseOpen", watch);
  document.addEventListener("htmx:sseError", watch);
  document.addEventListener("htmx:confirm", function (event) {
    var poller = event.target, cause = event.detail.triggeringEvent;
    if (poller.dataset && poller.dataset.liveToken && cause && cause.type === "sse:changed" &&
        cause.detail && cause.detail.data === poller.dataset.liveToken) {
      event.preventDefault();  // this board already shows that token
    }
  });
  function ms(text) { return text.slice(-2) === "ms" ? parseFloat(text) : parseFloat(text) * 1000; }
  setInterval(function () {
    var now = Date.now();
    document.querySelectorAll(".poller[data-live-stale]").forEach(function (poller) {
      if (!poller.liveSince) poller.liveSince = now;
      var heard = poller.liveHeard || poller.liveSince;
      if (!poller.liveFallback && now - heard > +poller.dataset.liveStale) {
        poller.liveFallback = now;
        poller.dataset.liveUrl = poller.getAttribute("sse-connect") || poller.dataset.liveUrl;
        poller.removeAttribute("sse-connect");  // the extension reconnects no more
        if (poller.liveSource) poller.liveSource.close();
        poller.classList.add("live-polling");
      }
      if (!poller.liveFallback) return;
      if (now - (poller.livePolled || 0) >= ms(poller.dataset.livePoll)) {
        poller.livePolled = now;
        htmx.trigger(poller, "live-poll");
      }
      if (now - poller.liveFallback >= +poller.dataset.liveRetry) {
        var fresh = poller.cloneNode(false);
        fresh.setAttribute("sse-connect", poller.dataset.liveUrl);
        fresh.classList.remove("live-polling");
        poller.replaceWith(fresh);
        htmx.process(fresh);
      }
    });
  }, 250);
  // The waiting room's clocks between its updates (with push it is fetched only when something
  // changes): data-tick (+1 or -1) moves the number data-count in the element's text once a
  // second. A countdown about to say 1 asks the server for the room instead (its sentence says
  // "1 second", not "1 seconds"); polling rooms are fetched every 2 s anyway.
  setInterval(function () {
    document.querySelectorAll("[data-tick]").forEach(function (clock) {
      var from = +clock.dataset.count, step = +clock.dataset.tick, to = from + step;
      if (isNaN(to) || to < 0) return;
      if (step < 0 && to <= 1) {
        clock.removeAttribute("data-tick");
        var poller = document.querySelector(".poller[data-live-stale]");
        if (poller) htmx.trigger(poller, "live-poll");
        return;
      }
      var number = new RegExp("\\b" + from + "\\b"), texts = document.createTreeWalker(clock, NodeFilter.SHOW_TEXT), text;
      while ((text = texts.nextNode())) {
        if (number.test(text.nodeValue)) {
          text.nodeValue = text.nodeValue.replace(number, String(to));
          break;
        }
      }
      clock.dataset.count = to;
    });
  }, 1000);
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
