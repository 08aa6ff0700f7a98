/**
 * How every icon is drawn (see icons.tsx, the one place icons are imported from): a 24×24 stroke drawing in
 * currentColor, decorative by default (`aria-hidden`), meaningful with a `title`.
 */
import type { ReactNode, SVGProps } from "react"

export interface IconProps extends Omit<SVGProps<SVGSVGElement>, "children"> {
  readonly size?: number
  readonly title?: string
}

export const icon = (name: string, paths: ReactNode) => {
  const Icon = ({ size = 18, title, ...rest }: IconProps) => (
    <svg
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      focusable="false"
      {...(title === undefined ? { "aria-hidden": true } : { role: "img", "aria-label": title })}
      {...rest}
    >
      {title === undefined ? null : <title>{title}</title>}
      {paths}
    </svg>
  )
  Icon.displayName = name
  return Icon
}
