/**
 * Link: react-aria `Link`. Inside the app's `RouterProvider` (views/app.tsx) an internal `href` navigates with wouter
 * (no page load); paths are absolute ("/dashboard/scans"), also inside the nested dashboard routes.
 */
import { Link as AriaLink, type LinkProps as AriaLinkProps } from "react-aria-components"
import { link } from "./link.css.ts"

export interface LinkProps extends Omit<AriaLinkProps, "className"> {
  readonly variant?: "inline" | "subtle" | "button"
  readonly className?: string
}

export function Link({ variant = "inline", className, ...props }: LinkProps) {
  return <AriaLink {...props} className={[link({ variant }), className].filter(Boolean).join(" ")} />
}
