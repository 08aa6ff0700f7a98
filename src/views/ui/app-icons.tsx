/** The icons only the pages behind sign-in draw (part of the one icon set: import them from icons.tsx). */
import { icon } from "./icon-base.tsx"

export const CheckIcon = /* @__PURE__ */ icon("CheckIcon", <path d="M20 6 9 17l-5-5" />)
export const ChevronDownIcon = /* @__PURE__ */ icon("ChevronDownIcon", <path d="m6 9 6 6 6-6" />)
export const ChevronLeftIcon = /* @__PURE__ */ icon("ChevronLeftIcon", <path d="m15 18-6-6 6-6" />)
export const ChevronRightIcon = /* @__PURE__ */ icon("ChevronRightIcon", <path d="m9 18 6-6-6-6" />)
export const MenuIcon = /* @__PURE__ */ icon("MenuIcon", <path d="M4 6h16M4 12h16M4 18h16" />)
export const ShieldIcon = /* @__PURE__ */ icon("ShieldIcon", <path d="M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10Z" />)
export const DashboardIcon = /* @__PURE__ */ icon(
  "DashboardIcon",
  <>
    <rect x="3" y="3" width="7" height="9" rx="1" />
    <rect x="14" y="3" width="7" height="5" rx="1" />
    <rect x="14" y="12" width="7" height="9" rx="1" />
    <rect x="3" y="16" width="7" height="5" rx="1" />
  </>,
)

// Icons of the shell, team, profile and scanning screens (one set for the whole app).
export const CrownIcon = /* @__PURE__ */ icon("CrownIcon", <path d="m2 7 5 4 5-7 5 7 5-4-2 12H4L2 7Z" />)
export const UsersIcon = /* @__PURE__ */ icon(
  "UsersIcon",
  <>
    <path d="M16 21v-2a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v2" />
    <circle cx="9" cy="7" r="4" />
    <path d="M22 21v-2a4 4 0 0 0-3-3.87M16 3.13a4 4 0 0 1 0 7.75" />
  </>,
)
export const UserIcon = /* @__PURE__ */ icon(
  "UserIcon",
  <>
    <path d="M20 21v-2a4 4 0 0 0-4-4H8a4 4 0 0 0-4 4v2" />
    <circle cx="12" cy="7" r="4" />
  </>,
)
export const LogOutIcon = /* @__PURE__ */ icon(
  "LogOutIcon",
  <path d="M9 21H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h4M16 17l5-5-5-5M21 12H9" />,
)
export const SwitchIcon = /* @__PURE__ */ icon("SwitchIcon", <path d="M16 3h5v5M4 20 21 3M21 16v5h-5M15 15l6 6M4 4l5 5" />)
export const BuildingIcon = /* @__PURE__ */ icon(
  "BuildingIcon",
  <>
    <rect x="4" y="2" width="16" height="20" rx="2" />
    <path d="M9 22v-4h6v4M8 6h.01M16 6h.01M12 6h.01M12 10h.01M12 14h.01M16 10h.01M16 14h.01M8 10h.01M8 14h.01" />
  </>,
)
export const SearchIcon = /* @__PURE__ */ icon(
  "SearchIcon",
  <>
    <circle cx="11" cy="11" r="8" />
    <path d="m21 21-4.3-4.3" />
  </>,
)
export const ArrowLeftIcon = /* @__PURE__ */ icon("ArrowLeftIcon", <path d="M19 12H5M12 19l-7-7 7-7" />)
export const MailIcon = /* @__PURE__ */ icon(
  "MailIcon",
  <>
    <rect x="2" y="4" width="20" height="16" rx="2" />
    <path d="m22 7-10 6L2 7" />
  </>,
)
export const CircleIcon = /* @__PURE__ */ icon("CircleIcon", <circle cx="12" cy="12" r="9" />)
export const CheckCircleIcon = /* @__PURE__ */ icon(
  "CheckCircleIcon",
  <>
    <circle cx="12" cy="12" r="9" />
    <path d="m8 12 3 3 5-6" />
  </>,
)
export const MoreVerticalIcon = /* @__PURE__ */ icon(
  "MoreVerticalIcon",
  <>
    <circle cx="12" cy="5" r="1" />
    <circle cx="12" cy="12" r="1" />
    <circle cx="12" cy="19" r="1" />
  </>,
)
export const UserPlusIcon = /* @__PURE__ */ icon(
  "UserPlusIcon",
  <>
    <path d="M16 21v-2a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v2" />
    <circle cx="9" cy="7" r="4" />
    <path d="M19 8v6M22 11h-6" />
  </>,
)
export const MailPlusIcon = /* @__PURE__ */ icon(
  "MailPlusIcon",
  <>
    <path d="M22 13V6a2 2 0 0 0-2-2H4a2 2 0 0 0-2 2v12a2 2 0 0 0 2 2h8" />
    <path d="m22 7-10 6L2 7M19 16v6M16 19h6" />
  </>,
)
export const PencilIcon = /* @__PURE__ */ icon("PencilIcon", <path d="M17 3a2.8 2.8 0 1 1 4 4L7.5 20.5 2 22l1.5-5.5Z" />)
export const KeyIcon = /* @__PURE__ */ icon(
  "KeyIcon",
  <>
    <circle cx="7.5" cy="15.5" r="5.5" />
    <path d="m21 2-9.6 9.6M15.5 7.5l3 3L22 7l-3-3" />
  </>,
)
export const ShieldUserIcon = /* @__PURE__ */ icon(
  "ShieldUserIcon",
  <>
    <path d="M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10Z" />
    <circle cx="12" cy="10" r="2.5" />
    <path d="M8 16a4.5 4.5 0 0 1 8 0" />
  </>,
)
export const TrashIcon = /* @__PURE__ */ icon(
  "TrashIcon",
  <>
    <path d="M3 6h18M8 6V4h8v2M19 6l-1 14H6L5 6" />
    <path d="M10 11v6M14 11v6" />
  </>,
)
export const SendIcon = /* @__PURE__ */ icon("SendIcon", <path d="m22 2-7 20-4-9-9-4Z M22 2 11 13" />)
export const XCircleIcon = /* @__PURE__ */ icon(
  "XCircleIcon",
  <>
    <circle cx="12" cy="12" r="10" />
    <path d="m15 9-6 6M9 9l6 6" />
  </>,
)
export const PlusIcon = /* @__PURE__ */ icon("PlusIcon", <path d="M12 5v14M5 12h14" />)
export const LinkIcon = /* @__PURE__ */ icon(
  "LinkIcon",
  <>
    <path d="M10 13a5 5 0 0 0 7.5.5l3-3a5 5 0 0 0-7-7l-1.7 1.7" />
    <path d="M14 11a5 5 0 0 0-7.5-.5l-3 3a5 5 0 0 0 7 7l1.7-1.7" />
  </>,
)
export const InboxIcon = /* @__PURE__ */ icon(
  "InboxIcon",
  <>
    <path d="M22 12h-6l-2 3h-4l-2-3H2" />
    <path d="M5.5 5.1 2 12v6a2 2 0 0 0 2 2h16a2 2 0 0 0 2-2v-6l-3.5-6.9A2 2 0 0 0 16.8 4H7.2a2 2 0 0 0-1.7 1.1Z" />
  </>,
)
export const LockIcon = /* @__PURE__ */ icon(
  "LockIcon",
  <>
    <rect x="3" y="11" width="18" height="11" rx="2" />
    <path d="M7 11V7a5 5 0 0 1 10 0v4" />
  </>,
)
export const ArrowRightIcon = /* @__PURE__ */ icon("ArrowRightIcon", <path d="M5 12h14M13 6l6 6-6 6" />)
export const RefreshIcon = /* @__PURE__ */ icon("RefreshIcon", <path d="M21 12a9 9 0 0 1-15.5 6.2M3 12A9 9 0 0 1 18.5 5.8M21 4v5h-5M3 20v-5h5" />)
export const PlayIcon = /* @__PURE__ */ icon("PlayIcon", <path d="m7 4 13 8-13 8V4Z" />)
export const DownloadIcon = /* @__PURE__ */ icon("DownloadIcon", <path d="M12 3v12m0 0-4-4m4 4 4-4M4 17v3h16v-3" />)
export const FilterIcon = /* @__PURE__ */ icon("FilterIcon", <path d="M3 5h18l-7 8v6l-4 2v-8L3 5Z" />)
export const CloudIcon = /* @__PURE__ */ icon("CloudIcon", <path d="M7 18a5 5 0 0 1-.6-9.96A7 7 0 0 1 19.5 9.5 4.5 4.5 0 0 1 18 18H7Z" />)
export const StopIcon = /* @__PURE__ */ icon("StopIcon", <path d="M6 6h12v12H6z" />)
export const ServerIcon = /* @__PURE__ */ icon("ServerIcon", <path d="M4 4h16v6H4zM4 14h16v6H4zM8 7h.01M8 17h.01" />)
