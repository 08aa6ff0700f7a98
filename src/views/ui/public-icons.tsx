/** The icons the pages before sign-in draw (part of the one icon set: import them from icons.tsx). */
import { icon } from "./icon-base.tsx"

export const CloseIcon = /* @__PURE__ */ icon("CloseIcon", <path d="M18 6 6 18M6 6l12 12" />)
export const EyeIcon = /* @__PURE__ */ icon(
  "EyeIcon",
  <>
    <path d="M2 12s3.5-7 10-7 10 7 10 7-3.5 7-10 7S2 12 2 12Z" />
    <circle cx="12" cy="12" r="3" />
  </>,
)
export const EyeOffIcon = /* @__PURE__ */ icon(
  "EyeOffIcon",
  <>
    <path d="M10.6 5.1A9.9 9.9 0 0 1 12 5c6.5 0 10 7 10 7a17.7 17.7 0 0 1-2.2 3.2M6.6 6.6C3.9 8.3 2 12 2 12s3.5 7 10 7a9.7 9.7 0 0 0 5.4-1.6" />
    <path d="M9.9 9.9a3 3 0 0 0 4.2 4.2M2 2l20 20" />
  </>,
)
export const ShieldCheckIcon = /* @__PURE__ */ icon(
  "ShieldCheckIcon",
  <>
    <path d="M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10Z" />
    <path d="m9 12 2 2 4-4" />
  </>,
)
export const ScanIcon = /* @__PURE__ */ icon(
  "ScanIcon",
  <>
    <path d="M3 7V5a2 2 0 0 1 2-2h2M17 3h2a2 2 0 0 1 2 2v2M21 17v2a2 2 0 0 1-2 2h-2M7 21H5a2 2 0 0 1-2-2v-2" />
    <path d="M7 12h10" />
  </>,
)
export const BugIcon = /* @__PURE__ */ icon(
  "BugIcon",
  <>
    <rect x="8" y="6" width="8" height="14" rx="4" />
    <path d="M12 20v-9M8 10H4M20 10h-4M8 15H3M21 15h-5M9 6l-2-3M15 6l2-3" />
  </>,
)
export const ClipboardCheckIcon = /* @__PURE__ */ icon(
  "ClipboardCheckIcon",
  <>
    <rect x="8" y="2" width="8" height="4" rx="1" />
    <path d="M16 4h2a2 2 0 0 1 2 2v14a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2h2" />
    <path d="m9 14 2 2 4-4" />
  </>,
)
export const ReportIcon = /* @__PURE__ */ icon(
  "ReportIcon",
  <>
    <path d="M14 2H6a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8Z" />
    <path d="M14 2v6h6M8 13h2M8 17h8M14 13h2" />
  </>,
)
export const InfoIcon = /* @__PURE__ */ icon(
  "InfoIcon",
  <>
    <circle cx="12" cy="12" r="10" />
    <path d="M12 16v-4M12 8h.01" />
  </>,
)
export const SuccessIcon = /* @__PURE__ */ icon(
  "SuccessIcon",
  <>
    <circle cx="12" cy="12" r="10" />
    <path d="m8 12 3 3 5-6" />
  </>,
)
export const WarningIcon = /* @__PURE__ */ icon(
  "WarningIcon",
  <>
    <path d="M10.3 3.9 1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0Z" />
    <path d="M12 9v4M12 17h.01" />
  </>,
)
export const ErrorIcon = /* @__PURE__ */ icon(
  "ErrorIcon",
  <>
    <circle cx="12" cy="12" r="10" />
    <path d="M15 9l-6 6M9 9l6 6" />
  </>,
)
export const HomeIcon = /* @__PURE__ */ icon(
  "HomeIcon",
  <>
    <path d="m3 10 9-7 9 7v10a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2Z" />
    <path d="M9 22V12h6v10" />
  </>,
)
