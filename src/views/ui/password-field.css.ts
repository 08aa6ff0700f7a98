import { style } from "@vanilla-extract/css"
import { buttonInControl, controlWithButton } from "./text-field.css.ts"
import { vars } from "./theme.css.ts"

export const inputWrap = controlWithButton

/** Room for the toggle; doubled class so it wins over the shared control's `padding` whatever the CSS order. */
export const input = style({ selectors: { "&&": { paddingRight: "44px" } } })

/** The reveal button: subtle until hovered, with pressed and disabled looks. */
export const toggle = style([
  buttonInControl,
  {
    color: vars.color.textSubtle,
    selectors: {
      "&[data-hovered]": { color: vars.color.text },
      // Doubled class: wins over the shared hovered background whatever the CSS order (a press is hovered too).
      "&&[data-pressed]": { background: vars.color.border },
      "&[data-disabled]": { cursor: "not-allowed", opacity: 0.5 },
    },
  },
])
