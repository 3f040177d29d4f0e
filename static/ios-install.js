// On a scorer's page in Safari on an iPhone or iPad (not already opened from the Home Screen):
// one line saying how to add the app to the Home Screen, since Safari deletes a site's storage
// (the outbox of hands not yet sent, the kept evening) after 7 days without a visit unless the
// site is installed. Dismissed, it is not shown again on this phone.
import { say } from "./words.js";

const DISMISSED = "nap.ios-install.dismissed";

/** Whether `nav` (a navigator) is Safari on iOS or iPadOS, not opened from the Home Screen
 * (`navigator.standalone`): iPadOS says it is a Mac, but one with a touch screen; Chrome,
 * Firefox, Edge and Opera on iOS name themselves (CriOS, FxiOS, EdgiOS, OPiOS), as does the
 * Google app (GSA). */
export function wantsHomeScreen(nav) {
  const ua = String((nav && nav.userAgent) || "");
  const apple = /\b(iPhone|iPad|iPod)\b/.test(ua) || (/\bMacintosh\b/.test(ua) && Number(nav.maxTouchPoints) > 1);
  const safari = /\bSafari\//.test(ua) && /\bVersion\//.test(ua) && !/\b(CriOS|FxiOS|EdgiOS|OPiOS|GSA)\//.test(ua);
  return apple && safari && nav.standalone !== true;
}

function dismissed() {
  try { return localStorage.getItem(DISMISSED) === "1"; } catch (e) { return false; }
}

function show() {
  const live = document.querySelector("[data-live]");
  if (!live || document.querySelector(".ios-install")) return;
  const note = document.createElement("p");
  note.className = "flash ios-install";
  note.setAttribute("role", "note");
  note.append(document.createTextNode(say("ios-install") + " "));
  const close = document.createElement("button");
  close.type = "button";
  close.className = "button small";
  close.textContent = say("dismiss");
  close.addEventListener("click", () => {
    try { localStorage.setItem(DISMISSED, "1"); } catch (e) { /* not kept: shown again next time */ }
    note.remove();
  });
  note.append(close);
  live.parentNode.insertBefore(note, live);
}

if (typeof document !== "undefined" && typeof navigator !== "undefined" && wantsHomeScreen(navigator) && !dismissed()) {
  show();
}
