// Errors htmx does not swap (anything but a 422) surface in the flash bar instead of failing silently.
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
