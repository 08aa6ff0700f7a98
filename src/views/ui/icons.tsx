/**
 * The one icon set: inline stroke icons (24×24 grid, currentColor), no icon font, nothing fetched at runtime. Decorative
 * by default (`aria-hidden`); give a `title` to make one meaningful. Every view imports icons from here. The drawings
 * sit in two modules so that the sign-in page carries only its own (public-icons.tsx) and the rest load with the
 * screens behind sign-in (app-icons.tsx); a new icon goes in the one matching where it is first drawn.
 */
export type { IconProps } from "./icon-base.tsx"
export * from "./public-icons.tsx"
export * from "./app-icons.tsx"
