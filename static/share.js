// The Share page's buttons: "Share…" opens the phone's own share sheet (Web Share API)
// with the table's viewing link, "Copy link" puts it on the clipboard. Each button shows
// only where the browser can do it; without JavaScript the link and QR code are there.
(function () {
  "use strict";
  var box = document.querySelector("[data-share]");
  if (!box) return;
  var url = box.getAttribute("data-share");
  var native = box.querySelector("[data-share-native]");
  var copy = box.querySelector("[data-share-copy]");
  var said = box.querySelector("[data-share-said]");
  if (navigator.share) {
    native.hidden = false;
    native.addEventListener("click", function () {
      navigator.share({ title: box.getAttribute("data-title") || document.title, url: url })
        .catch(function () { /* the phone's sheet was closed */ });
    });
  }
  if (navigator.clipboard && window.isSecureContext) {
    copy.hidden = false;
    copy.addEventListener("click", function () {
      navigator.clipboard.writeText(url).then(function () {
        said.textContent = box.getAttribute("data-copied");
      }).catch(function () { /* no permission: the link is on the page */ });
    });
  }
  box.hidden = native.hidden && copy.hidden;
})();
