// allauth's WebAuthn scripts announce a refusal (no passkey here, the person cancelled, the key
// timed out) as an `allauth.error` event and otherwise only log it: say it on the page instead,
// in the element marked data-webauthn-error.
(function () {
  "use strict";
  document.addEventListener("allauth.error", function (event) {
    var place = document.querySelector("[data-webauthn-error]");
    if (!place) return;
    var error = event.detail && event.detail.exception;
    var name = error && error.name;
    place.textContent =
      name === "NotAllowedError"
        ? "Your browser found no passkey for this hub, or the request was cancelled. Try again, or use another way."
        : "Your browser could not use a passkey or security key here" + (error && error.message ? ": " + error.message : ".");
    place.hidden = false;
    event.preventDefault();
  });
})();
