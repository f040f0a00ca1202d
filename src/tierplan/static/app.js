// Errors htmx does not swap (anything but a 422 or a 409) surface in the flash bar instead of failing silently.
document.addEventListener("htmx:responseError", function (event) {
  showFlash("The server answered " + event.detail.xhr.status + ": " + (event.detail.xhr.statusText || "error") + ". Nothing was changed.");
});
document.addEventListener("htmx:sendError", function () {
  showFlash("Could not reach the server. Check that tierplan is running, then try again.");
});
function showFlash(message) {
  var flash = document.getElementById("flash");
  if (!flash) return;
  flash.textContent = message;
  flash.hidden = false;
  setTimeout(function () { flash.hidden = true; }, 8000);
}

// Forms with a "kind" select show only the fields of the chosen kind (the server validates by kind too).
function syncKindFields(root) {
  root.querySelectorAll("form").forEach(function (form) {
    var kind = form.querySelector('select[name="kind"]');
    if (!kind) return;
    form.querySelectorAll("[data-show-for]").forEach(function (field) {
      field.hidden = field.dataset.showFor.split(" ").indexOf(kind.value) < 0;
    });
  });
}
document.addEventListener("change", function (event) {
  if (event.target.matches('select[name="kind"]')) syncKindFields(document);
});
document.addEventListener("DOMContentLoaded", function () { syncKindFields(document); });
document.addEventListener("htmx:afterSettle", function () { syncKindFields(document); });

// Upload progress and drag-and-drop on the import form.
document.addEventListener("htmx:xhr:progress", function (event) {
  var bar = document.getElementById("upload-progress");
  if (!bar || !event.detail.lengthComputable) return;
  bar.hidden = false;
  bar.value = Math.round(event.detail.loaded / event.detail.total * 100);
});
document.addEventListener("dragover", function (event) {
  var zone = event.target.closest && event.target.closest(".dropzone");
  if (!zone) return;
  event.preventDefault();
  zone.classList.add("over");
});
document.addEventListener("dragleave", function (event) {
  var zone = event.target.closest && event.target.closest(".dropzone");
  if (zone) zone.classList.remove("over");
});
document.addEventListener("drop", function (event) {
  var zone = event.target.closest && event.target.closest(".dropzone");
  if (!zone) return;
  event.preventDefault();
  zone.classList.remove("over");
  zone.querySelector('input[type="file"]').files = event.dataTransfer.files;
});

// Each measurement form shown gets a fresh idempotency key: a submit sent twice (a double click, a retry after a
// dropped connection) is stored once.
function fillIdempotencyKeys(root) {
  root.querySelectorAll("input[data-idempotency-key]").forEach(function (input) {
    if (input.value) return;
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    input.value = Array.prototype.map.call(bytes, function (b) { return b.toString(16).padStart(2, "0"); }).join("");
  });
}
document.addEventListener("DOMContentLoaded", function () { fillIdempotencyKeys(document); });
// afterSwap, not afterSettle: the key is in place in the same task that inserts the form, never a moment later.
document.addEventListener("htmx:afterSwap", function () { fillIdempotencyKeys(document); });

// Printing opens the folded sections (a closed <details> prints only its heading), and closes them again after.
window.addEventListener("beforeprint", function () {
  document.querySelectorAll("details.fold:not([open])").forEach(function (fold) {
    fold.dataset.printOpened = "1";
    fold.open = true;
  });
});
window.addEventListener("afterprint", function () {
  document.querySelectorAll("details.fold[data-print-opened]").forEach(function (fold) {
    delete fold.dataset.printOpened;
    fold.open = false;
  });
});

// Inline editing: the small form takes the focus when it opens (the field in error, after a 422); Escape cancels.
document.addEventListener("htmx:load", function (event) {
  var form = event.detail.elt;
  if (!form.matches || !form.matches("form.value-form")) return;
  var first = form.querySelector(".has-error input, .has-error select") ||
    form.querySelector("input:not([type=hidden]), select");
  if (first) first.focus();
});
// After a save or a cancel the value is shown again, swapped in out of band: the focus goes back to it, so a
// keyboard user carries on from where they were.
var lastInlineForm = null;
document.addEventListener("htmx:beforeRequest", function (event) {
  var form = event.detail.elt.closest && event.detail.elt.closest("form.value-form");
  lastInlineForm = form ? form.id : null;
});
document.addEventListener("htmx:load", function () {
  if (!lastInlineForm) return;
  var value = document.querySelector("span.editable#" + lastInlineForm + " a.editable-value");
  if (!value) return;
  lastInlineForm = null;
  value.focus();
});
document.addEventListener("keydown", function (event) {
  if (event.key !== "Escape" || !event.target.closest) return;
  var form = event.target.closest("form.value-form");
  if (!form) return;
  event.preventDefault();
  form.querySelector("[data-inline-cancel]").click();
});

// A change refused for want of a login goes to the login page and back: what was typed in the form is kept in
// this tab meanwhile (never a password or a file) and put back, to be submitted again.
var DRAFT = "tierplan-draft";
document.addEventListener("submit", function (event) {
  var form = event.target;
  var holder = form.id ? form : form.parentElement && form.parentElement.closest("[id]");
  if (!holder || (form.method || "").toLowerCase() !== "post" || form.action.indexOf("/login") >= 0) return;
  var values = [];
  Array.prototype.forEach.call(form.elements, function (field) {
    if (!field.name || field.type === "password" || field.type === "file" || field.type === "submit") return;
    if ((field.type === "checkbox" || field.type === "radio") && !field.checked) return;
    values.push([field.name, field.value]);
  });
  var where = form.id ? "#" + CSS.escape(form.id) : "#" + CSS.escape(holder.id) + " form";
  sessionStorage.setItem(DRAFT, JSON.stringify({path: location.pathname, form: where, values: values}));
}, true);
document.addEventListener("htmx:afterRequest", function (event) {
  if (event.detail.xhr && event.detail.xhr.status < 400) sessionStorage.removeItem(DRAFT);
});
document.addEventListener("DOMContentLoaded", function () {
  if (location.pathname === "/login") return;  // kept while the user logs in
  var draft = JSON.parse(sessionStorage.getItem(DRAFT) || "null");
  sessionStorage.removeItem(DRAFT);
  var fromLogin = document.referrer && new URL(document.referrer).pathname === "/login";
  if (!draft || !fromLogin || draft.path !== location.pathname) return;
  var form = document.querySelector(draft.form);
  if (!form) return;
  draft.values.forEach(function (pair) {
    var fields = form.querySelectorAll('[name="' + CSS.escape(pair[0]) + '"]');
    fields.forEach(function (field) {
      if (field.type === "checkbox" || field.type === "radio") field.checked = field.value === pair[1];
      else if (field.type !== "hidden" || pair[0] !== "idempotency_key") field.value = pair[1];
    });
  });
  syncKindFields(document);
  var note = document.createElement("p");
  note.className = "saved draft-restored";
  note.setAttribute("role", "status");
  note.textContent = "You are logged in. What you typed before is back in the form: submit it again to save it.";
  form.insertBefore(note, form.firstChild);
});
