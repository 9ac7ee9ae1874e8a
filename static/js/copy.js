// Copy buttons, for any page of the hub:
//   <button data-copy-target="ID" data-copied-label="Copied">Copy</button>
// copies the text of the element #ID (a <pre>, or the value of a <textarea>/<input>).
// An element marked data-copy-status, if present, announces the result to screen readers.
// No inline script anywhere: the public pages forbid it in their Content-Security-Policy.
(function () {
  "use strict";

  function sourceText(element) {
    return "value" in element ? element.value : element.textContent;
  }

  // Older browsers, or a page that is not a secure context: copy through a selected textarea.
  function copyWithSelection(text) {
    var scratch = document.createElement("textarea");
    scratch.className = "copy-scratch";
    scratch.value = text;
    scratch.setAttribute("readonly", "");
    document.body.appendChild(scratch);
    scratch.select();
    var copied = false;
    try {
      copied = document.execCommand("copy");
    } finally {
      document.body.removeChild(scratch);
    }
    return copied ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(function () {
        return copyWithSelection(text);
      });
    }
    return copyWithSelection(text);
  }

  function announce(button, message) {
    var status = document.querySelector("[data-copy-status]");
    if (status) {
      status.textContent = message;
    }
    var label = button.dataset.copyLabel || button.textContent;
    button.dataset.copyLabel = label;
    if (button.dataset.copiedLabel) {
      button.textContent = button.dataset.copiedLabel;
      window.setTimeout(function () { button.textContent = label; }, 2000);
    }
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy-target]");
    if (!button) {
      return;
    }
    var source = document.getElementById(button.dataset.copyTarget);
    if (!source) {
      return;
    }
    event.preventDefault();
    copyText(sourceText(source)).then(
      function () { announce(button, "Copied to the clipboard."); },
      function () {
        var status = document.querySelector("[data-copy-status]");
        if (status) {
          status.textContent = "Your browser refused to copy; the text is shown below to select by hand.";
        }
        var folded = source.closest("details");
        if (folded) {
          folded.open = true;
        }
      }
    );
  });
})();
