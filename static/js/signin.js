// Child sign-in: the few lines of script the sign-in pages use. Everything works without it.
(function () {
  "use strict";

  // The picture form sends itself as soon as the third picture is ticked, so a child taps
  // their name and three pictures and nothing else. The "That's me!" button stays for
  // keyboards and browsers without JavaScript.
  document.addEventListener("change", function (event) {
    var form = event.target.form;
    if (!form || !form.matches("form[data-autosubmit]")) {
      return;
    }
    var wanted = parseInt(form.dataset.autosubmit, 10);
    var ticked = form.querySelectorAll("input[type=checkbox]:checked").length;
    if (event.target.checked && ticked === wanted && !form.dataset.sent) {
      form.dataset.sent = "1";
      form.requestSubmit();
    }
  });

  // "That's me!" tapped just after the third picture sent the form: the answer ("Those are not
  // your pictures", every tick cleared) is on screen, and sending the empty form again would
  // replace it with "Tap three pictures". Keep it, and put the focus on the first picture. (A
  // second send while the first is under way is dropped: hx-sync on the form.)
  document.addEventListener("htmx:confirm", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form[data-autosubmit]")) {
      return;
    }
    var wanted = parseInt(form.dataset.autosubmit, 10);
    var ticked = form.querySelectorAll("input[type=checkbox]:checked").length;
    if (ticked < wanted && form.querySelector(".signin-error")) {
      event.preventDefault();
      var first = form.querySelector("input[type=checkbox]");
      if (first) first.focus();
    }
  });

  // The login cards' print button (Ctrl+P does the same).
  document.querySelectorAll("[data-print]").forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () {
      window.print();
    });
  });
})();
