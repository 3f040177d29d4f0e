// Typing a stake chooses money: an <input data-money="ID"> ticks the radio button ID
// as soon as something is typed in it (without JavaScript the server asks instead).
(function () {
  "use strict";
  var fields = document.querySelectorAll("input[data-money]");
  for (var i = 0; i < fields.length; i++) {
    fields[i].addEventListener("input", function (event) {
      var radio = document.getElementById(event.target.getAttribute("data-money"));
      if (radio && event.target.value.trim()) radio.checked = true;
    });
  }
})();
