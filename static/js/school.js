// School admin pages: a "Copy" button next to each invite link (the link stays selectable
// without JavaScript). Buttons are hidden until this file runs.
(function () {
  "use strict";
  function reveal(root) {
    if (!root || !root.querySelectorAll) {
      return;
    }
    root.querySelectorAll("[data-copy][hidden]").forEach(function (button) {
      button.hidden = false;
    });
  }
  function copied(button) {
    var status = button.parentNode.querySelector(".copy-status");
    if (status) {
      status.textContent = button.getAttribute("data-copied");
    }
  }
  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-copy]") : null;
    if (!button) {
      return;
    }
    var field = document.getElementById(button.getAttribute("data-copy"));
    if (!field) {
      return;
    }
    field.select();
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(function () { copied(button); });
    } else if (document.execCommand && document.execCommand("copy")) {
      copied(button);
    }
  });
  document.addEventListener("DOMContentLoaded", function () { reveal(document); });
  document.addEventListener("htmx:load", function (event) { reveal(event.detail.elt); });
})();
