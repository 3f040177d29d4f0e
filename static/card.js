// The payments page's result card (issue 22 item 7): "Share…" hands the picture to the phone's
// share sheet where the browser can (Web Share API with files: HTTPS only); "Copy the text"
// puts the text version on the clipboard, by the Clipboard API on HTTPS and by selecting the
// text and the browser's copy command on a home table's plain HTTP. Without JavaScript the
// picture's link and the text are on the page.
(function () {
  "use strict";
  var box = document.querySelector("[data-card]");
  if (!box) return;
  var text = box.querySelector("textarea");
  var copy = box.querySelector("[data-card-copy]");
  var share = box.querySelector("[data-card-share]");
  var said = box.querySelector("[data-card-said]");
  function say(key) { said.textContent = box.getAttribute(key); }
  copy.hidden = false;
  copy.addEventListener("click", function () {
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text.value).then(function () { say("data-copied"); },
        function () { fallback(); });
    } else {
      fallback();
    }
  });
  function fallback() {
    text.focus();
    text.select();
    var done = false;
    try { done = document.execCommand("copy"); } catch (e) { done = false; }
    say(done ? "data-copied" : "data-not-copied");
  }
  if (navigator.share && navigator.canShare && window.isSecureContext) {
    share.hidden = false;
    share.addEventListener("click", function () {
      fetch(box.getAttribute("data-card-url")).then(function (r) { return r.blob(); }).then(function (blob) {
        var file = new File([blob], box.getAttribute("data-card-name"), { type: "image/png" });
        var data = navigator.canShare({ files: [file] }) ? { files: [file], text: text.value } : { text: text.value };
        return navigator.share(data);
      }).catch(function () { /* the sheet was closed, or no network: the picture's link is on the page */ });
    });
  }
})();
