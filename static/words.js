// The page's words and messages for the browser's modules: the translated texts the
// server puts in the page (data-* of #netstate), a message left for the next page
// (shown there by note.js as a flash message), and an error shown in a form.

const words = typeof document !== "undefined" ? document.getElementById("netstate") : null;

/** The page's translated text `name` (data-<name> of #netstate); "" when absent. */
export function say(name) { return (words && words.getAttribute("data-" + name)) || ""; }

/** `template` with %(name)s replaced by `value`. */
export function fill(template, name, value) { return (template || "").split("%(" + name + ")s").join(value); }

/** A message for the next page; `saved`: the hand just saved as the server answered it
 * ({id, number, version}), so that the scoresheet shows its one-tap Undo beside the
 * message, as after the form's post. */
export function leaveNote(text, saved) {
  try {
    sessionStorage.setItem("nap.note", text);
    if (saved && saved.id) sessionStorage.setItem("nap.note.saved", JSON.stringify(saved));
    else sessionStorage.removeItem("nap.note.saved");
  } catch (e) { /* no storage: no note */ }
}

/** An error at the top of `form` (role=alert), replacing the one shown before. */
export function showError(form, text) {
  let p = form.querySelector(".outbox-error");
  if (!p) {
    p = document.createElement("p");
    p.className = "errors outbox-error";
    p.setAttribute("role", "alert");
    form.insertBefore(p, form.firstChild);
  }
  p.textContent = text;
  // said where the tap is seen: a long form (a correction) has it far above its save button
  if (typeof p.scrollIntoView === "function") p.scrollIntoView({ block: "nearest" });
}

/** The text of the label around `input` (a pill's player or bid). */
export function labelOf(input) {
  const label = input && input.closest("label");
  return label ? label.textContent.trim() : "";
}

/** The fields `form` would post with `button` pressed: name → value (the checked radios
 * and boxes, the hidden and typed fields; the first value of a name). */
export function fieldsOf(form, button) {
  const fields = {};
  new FormData(form).forEach((value, name) => { if (!(name in fields)) fields[name] = String(value); });
  if (button && button.name) fields[button.name] = button.value || "y";
  return fields;
}
