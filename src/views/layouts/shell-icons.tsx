/**
 * Icons of the shell, the workspace and the invitation screens that the UI kit does not have (same 24×24 stroke
 * style as src/views/ui/icons.tsx; decorative unless given a `title`).
 */
import type { ReactNode } from "react"
import type { IconProps } from "../ui/icons.tsx"

const icon = (name: string, paths: ReactNode) => {
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
      {paths}
    </svg>
  )
  Icon.displayName = name
  return Icon
}

export const CrownIcon = icon("CrownIcon", <path d="m2 7 5 4 5-7 5 7 5-4-2 12H4L2 7Z" />)
export const UsersIcon = icon(
  "UsersIcon",
  <>
    <path d="M16 21v-2a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v2" />
    <circle cx="9" cy="7" r="4" />
    <path d="M22 21v-2a4 4 0 0 0-3-3.87M16 3.13a4 4 0 0 1 0 7.75" />
  </>,
)
export const UserIcon = icon(
  "UserIcon",
  <>
    <path d="M20 21v-2a4 4 0 0 0-4-4H8a4 4 0 0 0-4 4v2" />
    <circle cx="12" cy="7" r="4" />
  </>,
)
export const LogOutIcon = icon(
  "LogOutIcon",
  <path d="M9 21H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h4M16 17l5-5-5-5M21 12H9" />,
)
export const SwitchIcon = icon("SwitchIcon", <path d="M16 3h5v5M4 20 21 3M21 16v5h-5M15 15l6 6M4 4l5 5" />)
export const BuildingIcon = icon(
  "BuildingIcon",
  <>
    <rect x="4" y="2" width="16" height="20" rx="2" />
    <path d="M9 22v-4h6v4M8 6h.01M16 6h.01M12 6h.01M12 10h.01M12 14h.01M16 10h.01M16 14h.01M8 10h.01M8 14h.01" />
  </>,
)
export const SearchIcon = icon(
  "SearchIcon",
  <>
    <circle cx="11" cy="11" r="8" />
    <path d="m21 21-4.3-4.3" />
  </>,
)
export const ArrowLeftIcon = icon("ArrowLeftIcon", <path d="M19 12H5M12 19l-7-7 7-7" />)
export const MailIcon = icon(
  "MailIcon",
  <>
    <rect x="2" y="4" width="20" height="16" rx="2" />
    <path d="m22 7-10 6L2 7" />
  </>,
)
export const CircleIcon = icon("CircleIcon", <circle cx="12" cy="12" r="9" />)
export const CheckCircleIcon = icon(
  "CheckCircleIcon",
  <>
    <circle cx="12" cy="12" r="9" />
    <path d="m8 12 3 3 5-6" />
  </>,
)
