/**
 * Auth layout (access §1, §2 "Layouts"): split screen. Left, the marketing panel with the product name and the four
 * feature cards; it is hidden below the 1024 px desktop breakpoint. Right, the form (`children`).
 */
import type { ComponentType, ReactNode } from "react"
import { BugIcon, ClipboardCheckIcon, ReportIcon, ScanIcon, ShieldCheckIcon, type IconProps } from "../ui/icons.tsx"
import * as css from "./auth-layout.css.ts"

export const PRODUCT_NAME = "Cloud Audit"

export interface Feature {
  readonly title: string
  readonly description: string
  readonly icon: ComponentType<IconProps>
}

/** Access §1: the four feature cards of the sign-in page. */
export const FEATURES: ReadonlyArray<Feature> = [
  {
    title: "Comprehensive Scans",
    description: "Scan every service of your AWS, GCP and Azure accounts in a single run.",
    icon: ScanIcon,
  },
  {
    title: "Vulnerability Detection",
    description: "Detect misconfigurations and exposed resources before attackers find them.",
    icon: BugIcon,
  },
  {
    title: "Compliance Checks",
    description: "Check your cloud against security best practices and remediate failed checks.",
    icon: ClipboardCheckIcon,
  },
  {
    title: "Detailed Reporting",
    description: "Review findings by service and severity, and export them as CSV or JSON.",
    icon: ReportIcon,
  },
]

export function AuthLayout({ children }: { readonly children: ReactNode }) {
  return (
    <div className={css.page}>
      <aside className={css.marketing} aria-label={`About ${PRODUCT_NAME}`}>
        <div className={css.brand}>
          <span className={css.brandMark}>
            <ShieldCheckIcon size={24} />
          </span>
          <span className={css.brandName}>{PRODUCT_NAME}</span>
        </div>
        <div>
          <p className={css.headline}>Cloud security audits for AWS, GCP and Azure.</p>
          <p className={css.lead}>Scan, detect and remediate vulnerabilities across all your cloud accounts, in one place.</p>
        </div>
        <ul className={css.features} aria-label="Features">
          {FEATURES.map(({ title, description, icon: Icon }) => (
            <li key={title} className={css.feature}>
              <span className={css.featureIcon}>
                <Icon size={20} />
              </span>
              <h2 className={css.featureTitle}>{title}</h2>
              <p className={css.featureText}>{description}</p>
            </li>
          ))}
        </ul>
      </aside>
      <main className={css.formSide}>
        <div className={css.compactBrand} aria-hidden="true">
          <span className={css.compactMark}>
            <ShieldCheckIcon size={20} />
          </span>
          {PRODUCT_NAME}
        </div>
        <div className={css.formContainer}>{children}</div>
      </main>
    </div>
  )
}
