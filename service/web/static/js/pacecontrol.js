// The pace of the other players, on the table beside the game (a radio group): one click away,
// kept on this device, in force from the next card.
import { setSpeed, speed } from "./settings.js";

export function bindPaceControl(fieldset) {
  if (!fieldset) return;
  for (const radio of fieldset.querySelectorAll('input[name="pace"]')) radio.checked = radio.value === speed();
  fieldset.addEventListener("change", (e) => {
    if (e.target.name === "pace") setSpeed(e.target.value);
  });
}
