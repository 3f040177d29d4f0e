// Send the table's time zone with the form: fills every <input data-zone> with the
// browser's IANA zone (Intl), so the evening's date and times are the table's, not UTC's.
// Without JavaScript (or Intl) the field stays empty and the server keeps UTC, and says so.
(function () {
  "use strict";
  var zone = "";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (e) {
    return;
  }
  var fields = document.querySelectorAll("input[data-zone]");
  for (var i = 0; i < fields.length; i++) {
    if (!fields[i].value) fields[i].value = zone;
  }
})();
