/**
 * The provider marks (AWS, GCP, Azure, or the provider's initial). Every stroke icon lives in src/views/ui/icons.tsx.
 */
import * as css from "./scan-parts.css.ts"

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
