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
  // A page an answer sends elsewhere (HX-Redirect: the waiting room when the game is made)
  // asks for nothing more while it goes: a second answer's redirect (the stream's event and
  // the room's own check can both find the game) would abort the first navigation and start
  // it again. A page shown again from the back-forward cache asks again.
  var leaving = false;
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (leaving) event.preventDefault();
  });
  document.addEventListener("htmx:afterRequest", function (event) {
    var xhr = event.detail && event.detail.xhr;
    if (xhr && xhr.getResponseHeader("HX-Redirect")) leaving = true;
  });
  window.addEventListener("pageshow", function () { leaving = false; });
  // The connection lost (docs/reliability.md, "When the database is away"): while the database
  // is away the server answers 503 with Retry-After and a notice (templates/503.html), and with
  // the server out of reach htmx gets no answer at all (htmx:sendError). The page says so in its
  // live region (#connection-status, base.html) and sends the same request again: a move keeps
  // its move id, a warm-up answer its question's token, so an answer that did arrive counts
  // once. It waits Retry-After seconds (2 without an answer), then half as long again each time,
  // at most 30 s, plus up to a quarter more (a class does not come back all at once). Meanwhile
  // the part of the page the answer goes to is inert (no second answer) and the polls wait (a
  // poll would put back the board from before the move); a poll that failed is the one sent
  // again only while nothing else waits. When an answer comes, the notice goes.
  var RESEND = { 502: true, 503: true, 504: true };
  var waiting = [];  // what to send again, oldest first: {verb, path, elt, values, busy, delay, timer, xhr}
  var sending = null;  // the entry htmx.ajax is sending now
  function say(text) {
    var region = document.getElementById("connection-status");
    if (region) region.textContent = text === undefined ? region.dataset.lost || "" : text;
  }
  function notice(xhr) {  // the server's own words, when it said them
    if (!xhr || !RESEND[xhr.status]) return undefined;
    var note = new DOMParser().parseFromString(xhr.responseText, "text/html").querySelector("[data-outage]");
    return note ? note.textContent.trim() : undefined;
  }
  function retryAfter(xhr) {
    var seconds = xhr ? parseFloat(xhr.getResponseHeader("Retry-After")) : NaN;
    return seconds > 0 ? seconds : 2;
  }
  function schedule(entry) {
    clearTimeout(entry.timer);
    entry.timer = setTimeout(resend, entry.delay * (1000 + Math.random() * 250));
  }
  function release(entry) {
    clearTimeout(entry.timer);
    if (entry.busy) {
      entry.busy.inert = false;
      entry.busy.removeAttribute("aria-busy");
    }
  }
  function resend() {
    var entry = waiting[0];
    if (!entry) return;
    if (!document.body.contains(entry.elt)) {  // its form is gone: nothing to send it from
      waiting.shift();
      release(entry);
      if (waiting.length) resend(); else say("");
      return;
    }
    entry.xhr = null;
    sending = entry;
    try {
      htmx.ajax(entry.verb, entry.path, { source: entry.elt });
    } finally {
      sending = null;
    }
    if (!entry.xhr) entry.timer = setTimeout(resend, 1000);  // held back (hx-sync): soon
  }
  document.addEventListener("htmx:configRequest", function (event) {
    if (sending) event.detail.parameters = sending.values;  // the very values sent the first time
  });
  document.addEventListener("htmx:beforeRequest", function (event) {
    if (sending) {
      if (!event.defaultPrevented) sending.xhr = event.detail.xhr;
    } else if (waiting.length && event.detail.requestConfig.verb === "get") {
      event.preventDefault();
    }
  });
  function lost(event) {
    var detail = event.detail, xhr = detail.xhr, config = detail.requestConfig;
    if (!config || (event.type === "htmx:responseError" && !RESEND[xhr.status])) return;
    var entry = waiting.filter(function (e) { return e.xhr && e.xhr === xhr; })[0];
    if (entry) {  // sent again, and lost again
      entry.xhr = null;
      entry.delay = Math.max(retryAfter(xhr), Math.min(entry.delay * 1.5, 30));
    } else {
      if (config.verb === "get" && waiting.length) return;  // a poll: what waits asks for it
      entry = { verb: config.verb, path: config.path, elt: config.elt, values: config.formData, delay: retryAfter(xhr) };
      if (config.verb !== "get") {
        waiting = waiting.filter(function (e) {  // a poll waiting gives way to the answer
          if (e.verb === "get") release(e);
          return e.verb !== "get";
        });
        var region = document.getElementById("connection-status");
        if (!region || !config.target.contains(region)) {  // the notice is never made inert
          entry.busy = config.target;
          entry.busy.inert = true;
          entry.busy.setAttribute("aria-busy", "true");
        }
      }
      waiting.push(entry);
    }
    say(notice(xhr));
    if (waiting[0] === entry) schedule(entry);
  }
  document.addEventListener("htmx:responseError", lost);
  document.addEventListener("htmx:sendError", lost);
  document.addEventListener("htmx:timeout", lost);
  document.addEventListener("htmx:afterRequest", function (event) {
    var xhr = event.detail.xhr, entry = waiting[0];
    if (!xhr || !xhr.status || RESEND[xhr.status]) return;  // lost: see above
    if (entry && entry.xhr === xhr) {
      waiting.shift();
      release(entry);
      if (waiting.length) resend();
    }
    if (!waiting.length) say("");
  });
  // A whole page answered 503 (templates/503.html): it asks again by itself, waiting longer
  // each time as above, and shows the page as soon as it comes.
  var away = document.querySelector("[data-reload-after]");
  if (away) {
    var delay = parseFloat(away.dataset.reloadAfter) || 2;
    var ask = function () {
      fetch(location.href, { cache: "no-store", credentials: "same-origin" }).then(function (response) {
        if (RESEND[response.status]) throw response;
        location.reload();
      }).catch(function () {
        delay = Math.min(delay * 1.5, 30);
        setTimeout(ask, delay * (1000 + Math.random() * 250));
      });
    };
    setTimeout(ask, delay * 1000);
  }
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
  // Live pages (docs/platform.md, "Live updates"): a pushed page listens on its stream (htmx's
  // sse extension), opened by the element with sse-connect and data-live-stale: the wall's and
  // the waiting room's poller itself, or a game page's .live-stream around its board, whose
  // boards swapped in keep listening on it. The poller (data-live-token) fetches itself on
  // "changed", but not for the token it already shows (its own move's echo). When the stream
  // says nothing (no event, no heartbeat) for data-live-stale ms, as behind a proxy that holds
  // it back, the page closes it, polls every data-live-poll as before and, after
  // data-live-retry ms, tries a fresh stream. A game page whose board has no poller any more
  // (the game is over, the seat is gone) closes its stream.
  function hear(live) { live.liveHeard = Date.now(); }
  function watch(event) {
    var live = event.target, source = event.detail && event.detail.source;
    if (!live.dataset || !live.dataset.liveStale || !source || live.liveSource === source) return;
    live.liveSource = source;
    source.addEventListener("beat", function () { hear(live); });
    source.addEventListener("changed", function (changed) {
      hear(live);
      live.liveLatest = changed.data;
    });
  }
  document.addEventListener("htmx:sseOpen", watch);
  document.addEventListener("htmx:sseError", watch);
  // A "changed" heard while another request for the board is under way (the player's own
  // move, the computer answering at once) makes a poll that hx-sync drops, and the stream
  // says it once: the board stayed a move behind until the safety poll, 30 s later. So when a
  // request ends and nothing else is under way, a board whose token is not the last one heard
  // asks once for that one (once: the answer may be "nothing newer" while the echo of the
  // board's own move is still on its way).
  function catchUp() {
    // Not while a request is under way or a board is being swapped in (its poller listens only
    // once settled): their end calls this again.
    if (document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added")) return;
    document.querySelectorAll("[data-live-stale]").forEach(function (live) {
      var poller = pollerOf(live), latest = live.liveLatest;
      if (!poller || !poller.dataset.liveToken || !latest) return;
      if (latest === poller.dataset.liveToken || live.liveCaught === latest) return;
      live.liveCaught = latest;
      htmx.trigger(poller, "live-poll");
    });
  }
  document.addEventListener("htmx:afterRequest", function () { setTimeout(catchUp, 0); });
  document.addEventListener("htmx:afterSettle", function () { setTimeout(catchUp, 0); });
  document.addEventListener("htmx:confirm", function (event) {
    var poller = event.target, cause = event.detail.triggeringEvent;
    if (poller.dataset && poller.dataset.liveToken && cause && cause.type === "sse:changed" &&
        cause.detail && cause.detail.data === poller.dataset.liveToken) {
      event.preventDefault();  // this board already shows that token
    }
  });
  function pollerOf(live) {
    return live.classList.contains("poller") ? live : live.querySelector(".poller[data-live-poll]");
  }
  function stop(live) {
    if (live.liveSource) live.liveSource.close();
    live.removeAttribute("sse-connect");  // the extension reconnects no more
  }
  function retry(live, poller) {
    var url = live.dataset.liveUrl;
    live.liveFallback = 0;
    live.liveSince = Date.now();
    live.liveHeard = 0;
    if (live === poller) {  // the poller is the stream's element: a fresh one opens a fresh stream
      var fresh = poller.cloneNode(false);
      fresh.setAttribute("sse-connect", url);
      fresh.classList.remove("live-polling");
      poller.replaceWith(fresh);
      htmx.process(fresh);
      return;
    }
    // A page's stream: asked again with the board's token (and a count, so that htmx sees a
    // new address and opens it), then the board's poller made afresh to listen on it.
    live.liveRetries = (live.liveRetries || 0) + 1;
    var token = poller ? poller.dataset.liveToken : "";
    live.setAttribute("sse-connect", url.split("?")[0] + "?v=" + encodeURIComponent(token) + "&retry=" + live.liveRetries);
    live.classList.remove("live-polling");
    htmx.process(live);
    if (poller) {
      var listener = poller.cloneNode(false);
      poller.replaceWith(listener);
      htmx.process(listener);
    }
  }
  function ms(text) { return text.slice(-2) === "ms" ? parseFloat(text) : parseFloat(text) * 1000; }
  setInterval(function () {
    var now = Date.now();
    document.querySelectorAll("[data-live-stale][sse-connect], [data-live-stale].live-polling").forEach(function (live) {
      var poller = pollerOf(live);
      if (!poller) {
        stop(live);
        live.removeAttribute("data-live-stale");  // nothing on the page listens any more
        return;
      }
      if (!live.liveSince) live.liveSince = now;
      var heard = live.liveHeard || live.liveSince;
      if (!live.liveFallback && now - heard > +live.dataset.liveStale) {
        live.liveFallback = now;
        live.dataset.liveUrl = live.getAttribute("sse-connect") || live.dataset.liveUrl;
        stop(live);
        live.classList.add("live-polling");
      }
      if (!live.liveFallback) return;
      if (now - (live.livePolled || 0) >= ms(poller.dataset.livePoll)) {
        live.livePolled = now;
        htmx.trigger(poller, "live-poll");
      }
      if (now - live.liveFallback >= +live.dataset.liveRetry) retry(live, poller);
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
