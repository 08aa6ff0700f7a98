/**
 * Icons of the User Management and Profile screens (24×24 stroke icons, currentColor, decorative unless titled), in the
 * same style as the UI kit's `icons.tsx`.
 */
import type { ReactNode, SVGProps } from "react"

export interface TeamIconProps extends Omit<SVGProps<SVGSVGElement>, "children"> {
  readonly size?: number
  readonly title?: string
}

const icon = (name: string, paths: ReactNode) => {
  const Icon = ({ size = 18, title, ...rest }: TeamIconProps) => (
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

export const MoreVerticalIcon = icon(
  "MoreVerticalIcon",
  <>
    <circle cx="12" cy="5" r="1" />
    <circle cx="12" cy="12" r="1" />
    <circle cx="12" cy="19" r="1" />
  </>,
)
export const CrownIcon = icon("CrownIcon", <path d="m2 7 5 4 5-7 5 7 5-4-2 11H4Z" />)
export const UserPlusIcon = icon(
  "UserPlusIcon",
  <>
    <path d="M16 21v-2a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v2" />
    <circle cx="9" cy="7" r="4" />
    <path d="M19 8v6M22 11h-6" />
  </>,
)
export const MailPlusIcon = icon(
  "MailPlusIcon",
  <>
    <path d="M22 13V6a2 2 0 0 0-2-2H4a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h8" />
    <path d="m22 7-10 6L2 7M19 16v6M16 19h6" />
  </>,
)
export const PencilIcon = icon("PencilIcon", <path d="M17 3a2.8 2.8 0 1 1 4 4L7.5 20.5 2 22l1.5-5.5Z" />)
export const KeyIcon = icon(
  "KeyIcon",
  <>
    <circle cx="7.5" cy="15.5" r="5.5" />
    <path d="m21 2-9.6 9.6M15.5 7.5l3 3L22 7l-3-3" />
  </>,
)
export const ShieldUserIcon = icon(
  "ShieldUserIcon",
  <>
    <path d="M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10Z" />
    <circle cx="12" cy="10" r="2.5" />
    <path d="M8 16a4.5 4.5 0 0 1 8 0" />
  </>,
)
export const TrashIcon = icon(
  "TrashIcon",
  <>
    <path d="M3 6h18M8 6V4h8v2M19 6l-1 14H6L5 6" />
    <path d="M10 11v6M14 11v6" />
  </>,
)
export const SendIcon = icon("SendIcon", <path d="m22 2-7 20-4-9-9-4Z M22 2 11 13" />)
export const XCircleIcon = icon(
  "XCircleIcon",
  <>
    <circle cx="12" cy="12" r="10" />
    <path d="m15 9-6 6M9 9l6 6" />
  </>,
)
export const PlusIcon = icon("PlusIcon", <path d="M12 5v14M5 12h14" />)
export const LinkIcon = icon(
  "LinkIcon",
  <>
    <path d="M10 13a5 5 0 0 0 7.5.5l3-3a5 5 0 0 0-7-7l-1.7 1.7" />
    <path d="M14 11a5 5 0 0 0-7.5-.5l-3 3a5 5 0 0 0 7 7l1.7-1.7" />
  </>,
)
export const UsersIcon = icon(
  "UsersIcon",
  <>
    <path d="M17 21v-2a4 4 0 0 0-4-4H5a4 4 0 0 0-4 4v2" />
    <circle cx="9" cy="7" r="4" />
    <path d="M23 21v-2a4 4 0 0 0-3-3.9M16 3.1a4 4 0 0 1 0 7.8" />
  </>,
)
export const InboxIcon = icon(
  "InboxIcon",
  <>
    <path d="M22 12h-6l-2 3h-4l-2-3H2" />
    <path d="M5.5 5.1 2 12v6a2 2 0 0 0 2 2h16a2 2 0 0 0 2-2v-6l-3.5-6.9A2 2 0 0 0 16.8 4H7.2a2 2 0 0 0-1.7 1.1Z" />
  </>,
)
export const LockIcon = icon(
  "LockIcon",
  <>
    <rect x="3" y="11" width="18" height="11" rx="2" />
    <path d="M7 11V7a5 5 0 0 1 10 0v4" />
  </>,
)
export const ArrowRightIcon = icon("ArrowRightIcon", <path d="M5 12h14M13 6l6 6-6 6" />)
