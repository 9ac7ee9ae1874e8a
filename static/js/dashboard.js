// The dashboard's one enhancement: a form marked data-confirm asks in a <dialog> before it is
// sent, then posts confirmed=yes. Without JavaScript the server answers such a form with a
// confirmation page instead, so nothing here is needed to use the hub.
(function () {
  "use strict";

  function buildDialog() {
    var dialog = document.createElement("dialog");
    dialog.className = "confirm-dialog";
    dialog.innerHTML =
      '<form method="dialog">' +
      '<p class="confirm-message"></p>' +
      '<div class="actions">' +
      '<button value="ok" class="danger confirm-ok">Confirm</button>' +
      '<button value="cancel" class="secondary">Cancel</button>' +
      "</div></form>";
    document.body.appendChild(dialog);
    return dialog;
  }

  function ask(message, label, onConfirm) {
    var dialog = document.querySelector("dialog.confirm-dialog") || buildDialog();
    dialog.querySelector(".confirm-message").textContent = message;
    dialog.querySelector(".confirm-ok").textContent = label || "Confirm";
    dialog.returnValue = "";
    dialog.onclose = function () {
      if (dialog.returnValue === "ok") onConfirm();
    };
    dialog.showModal();
    dialog.querySelector(".confirm-ok").focus();
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form.matches || !form.matches("form[data-confirm]") || form.dataset.confirmed) return;
    if (typeof HTMLDialogElement === "undefined") return; // old browser: the server asks instead
    event.preventDefault();
    var submitter = form.querySelector("button[type=submit], button:not([type])");
    ask(form.dataset.confirm, submitter ? submitter.textContent.trim() : "", function () {
      var confirmed = document.createElement("input");
      confirmed.type = "hidden";
      confirmed.name = "confirmed";
      confirmed.value = "yes";
      form.appendChild(confirmed);
      form.dataset.confirmed = "1";
      form.submit();
    });
  });
})();
