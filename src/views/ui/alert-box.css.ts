import { style } from "@vanilla-extract/css"
import { recipe } from "@vanilla-extract/recipes"
import { vars } from "./theme.css.ts"

export const alert = recipe({
  base: {
    display: "flex",
    alignItems: "flex-start",
    gap: vars.space.md,
    padding: `${vars.space.md} ${vars.space.lg}`,
    borderRadius: vars.radius.md,
    border: "1px solid transparent",
    fontSize: vars.font.sizeMd,
  },
  variants: {
    tone: {
      error: { background: vars.color.dangerSoft, borderColor: "#f5c2c2", color: vars.color.dangerText },
      success: { background: vars.color.successSoft, borderColor: "#b7e4c7", color: vars.color.successText },
      warning: { background: vars.color.warningSoft, borderColor: "#f7d59b", color: vars.color.warningText },
      info: { background: vars.color.infoSoft, borderColor: "#c3d4fb", color: vars.color.infoText },
    },
  },
  defaultVariants: { tone: "info" },
})

export const icon = style({ flexShrink: 0, marginTop: "2px" })

export const body = style({ display: "flex", flexDirection: "column", gap: vars.space.xxs, flex: 1, minWidth: 0 })

export const title = style({ fontWeight: vars.font.weightSemibold })

export const action = style({ flexShrink: 0, alignSelf: "center" })
