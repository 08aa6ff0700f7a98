/**
 * Icons of the scanning screens (24×24 stroke icons, currentColor, decorative unless titled), in the style of the UI
 * kit's `icons.tsx`, plus the provider marks (AWS, GCP, Azure, or the provider's initial).
 */
import type { ReactNode, SVGProps } from "react"
import * as css from "./scan-parts.css.ts"

export interface ScanIconProps extends Omit<SVGProps<SVGSVGElement>, "children"> {
  readonly size?: number
  readonly title?: string
}

const icon = (name: string, paths: ReactNode) => {
  const Icon = ({ size = 18, title, ...rest }: ScanIconProps) => (
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

export const RefreshIcon = icon("RefreshIcon", <path d="M21 12a9 9 0 0 1-15.5 6.2M3 12A9 9 0 0 1 18.5 5.8M21 4v5h-5M3 20v-5h5" />)
export const PlusIcon = icon("PlusIcon", <path d="M12 5v14M5 12h14" />)
export const PlayIcon = icon("PlayIcon", <path d="m7 4 13 8-13 8V4Z" />)
export const DownloadIcon = icon("DownloadIcon", <path d="M12 3v12m0 0-4-4m4 4 4-4M4 17v3h16v-3" />)
export const TrashIcon = icon("TrashIcon", <path d="M3 6h18M8 6V4h8v2m-9 0 1 14h8l1-14M10 10v7M14 10v7" />)
export const FilterIcon = icon("FilterIcon", <path d="M3 5h18l-7 8v6l-4 2v-8L3 5Z" />)
export const CloudIcon = icon("CloudIcon", <path d="M7 18a5 5 0 0 1-.6-9.96A7 7 0 0 1 19.5 9.5 4.5 4.5 0 0 1 18 18H7Z" />)
export const KeyIcon = icon("KeyIcon", <path d="M15 7a4 4 0 1 1-3.9 4.9L4 19v2h3v-2h2v-2h2l1.1-1.1A4 4 0 0 1 15 7Zm1.5 1.5h.01" />)
export const StopIcon = icon("StopIcon", <path d="M6 6h12v12H6z" />)
export const ArrowLeftIcon = icon("ArrowLeftIcon", <path d="M19 12H5m6-6-6 6 6 6" />)
export const ServerIcon = icon("ServerIcon", <path d="M4 4h16v6H4zM4 14h16v6H4zM8 7h.01M8 17h.01" />)

/** Background and text of each mark (contrast ≥ 4.5:1). */
const PROVIDER_COLORS: Readonly<Record<string, readonly [string, string]>> = {
  aws: ["#232f3e", "#ff9900"],
  gcp: ["#1a5fc4", "#ffffff"],
  azure: ["#005a9e", "#ffffff"],
}

/** A provider mark: a rounded square with the provider's short name (no third-party logo files). */
export function ProviderIcon({
  name,
  size = 40,
  decorative = false,
}: {
  readonly name: string
  readonly size?: number
  /** Inside a control whose text already names the provider: hidden from assistive technology. */
  readonly decorative?: boolean
}) {
  const key = name.trim().toLowerCase()
  const label = key === "aws" ? "AWS" : key === "gcp" ? "GCP" : key === "azure" ? "Az" : (name.trim().charAt(0).toUpperCase() || "?")
  return (
    <span
      className={css.providerIcon}
      style={{
        width: size,
        height: size,
        background: PROVIDER_COLORS[key]?.[0] ?? "#475569",
        color: PROVIDER_COLORS[key]?.[1] ?? "#ffffff",
        fontSize: Math.round(size * 0.32),
      }}
      {...(decorative ? { "aria-hidden": true } : { role: "img", "aria-label": `${name} provider` })}
    >
      {label}
    </span>
  )
}
