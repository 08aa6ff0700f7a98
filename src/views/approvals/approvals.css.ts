/** Styles of the approvals inbox (issue 32): one card per request, its facts, the decision form. */
import { style } from "@vanilla-extract/css"
import { vars } from "../ui/theme.css.ts"

export const list = style({ display: "flex", flexDirection: "column", gap: vars.space.md, listStyle: "none", padding: 0, margin: 0 })

export const focused = style({ outline: `2px solid ${vars.color.accent}`, outlineOffset: 2, borderRadius: vars.radius.lg })

export const head = style({ display: "flex", flexWrap: "wrap", alignItems: "center", gap: vars.space.sm })

export const facts = style({
  display: "grid",
  gridTemplateColumns: "repeat(auto-fit, minmax(min(100%, 220px), 1fr))",
  gap: vars.space.md,
  margin: 0,
})

export const sentence = style({ margin: 0, color: vars.color.text, overflowWrap: "anywhere" })

export const body = style({ display: "flex", flexDirection: "column", gap: vars.space.md, minWidth: 0 })

export const form = style({ display: "flex", flexDirection: "column", gap: vars.space.md, maxWidth: 560 })

export const toolbar = style({ display: "flex", flexWrap: "wrap", alignItems: "flex-end", gap: vars.space.md, justifyContent: "space-between" })
