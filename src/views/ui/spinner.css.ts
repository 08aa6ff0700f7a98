import { keyframes, style } from "@vanilla-extract/css"
import { recipe } from "@vanilla-extract/recipes"
import { vars } from "./theme.css.ts"

const spin = keyframes({ to: { transform: "rotate(360deg)" } })

export const spinner = recipe({
  base: { display: "inline-flex", flexShrink: 0 },
  variants: {
    tone: {
      accent: { color: vars.color.accent },
      muted: { color: vars.color.textSubtle },
      inherit: { color: "currentColor" },
      inverse: { color: vars.color.textInverse },
    },
  },
  defaultVariants: { tone: "accent" },
})

export const svg = style({ animation: `${spin} 0.8s linear infinite`, display: "block" })
export const track = style({ opacity: 0.2 })
