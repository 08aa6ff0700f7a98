/**
 * Placeholder screen: the heading a route will keep, and a clearly-labelled box saying the screen's body is not built
 * yet (with the route and its parameters). Each view file replaces the box with the real screen later.
 */
import type { ReactNode } from "react"
import * as css from "./placeholder.css.ts"

export interface PlaceholderScreenProps {
  readonly title: string
  readonly subtitle?: string
  /** Route pattern, e.g. "/dashboard/scans/:scanId". */
  readonly route: string
  /** Route parameters and query values worth showing. */
  readonly details?: Readonly<Record<string, string | undefined>>
  /** Links or actions under the box. */
  readonly footer?: ReactNode
}

export function PlaceholderScreen({ title, subtitle, route, details = {}, footer }: PlaceholderScreenProps) {
  const rows = Object.entries(details).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== "")
  return (
    <div className={css.screen}>
      <div className={css.heading}>
        <h1 className={css.title}>{title}</h1>
        {subtitle === undefined ? null : <p className={css.subtitle}>{subtitle}</p>}
      </div>
      <section className={css.box} aria-label="Placeholder" data-placeholder={route}>
        <span className={css.label}>Placeholder</span>
        <p>This screen is not built yet. Route {route}.</p>
        {rows.length === 0 ? null : (
          <dl className={css.details}>
            {rows.map(([name, value]) => (
              <div key={name} style={{ display: "contents" }}>
                <dt className={css.term}>{name}</dt>
                <dd className={css.value}>{value}</dd>
              </div>
            ))}
          </dl>
        )}
      </section>
      {footer === undefined ? null : <div className={css.footer}>{footer}</div>}
    </div>
  )
}
