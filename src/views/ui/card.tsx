/** Card: a white surface with an optional header (title, description, actions). */
import type { ReactNode } from "react"
import * as css from "./card.css.ts"

export interface CardProps {
  readonly title?: ReactNode
  readonly description?: ReactNode
  readonly actions?: ReactNode
  readonly children?: ReactNode
  readonly padding?: "none" | "md" | "lg"
  /** Heading level of the title (default 2). */
  readonly level?: 2 | 3 | 4
  readonly className?: string
  readonly "aria-label"?: string
}

export function Card({ title, description, actions, children, padding = "lg", level = 2, className, ...rest }: CardProps) {
  const Heading = `h${level}` as const
  const hasHeader = title !== undefined || description !== undefined || actions !== undefined
  return (
    <section className={[css.card({ padding }), className].filter(Boolean).join(" ")} aria-label={rest["aria-label"]}>
      {hasHeader ? (
        <div className={css.header}>
          <div className={css.titles}>
            {title === undefined ? null : <Heading className={css.title}>{title}</Heading>}
            {description === undefined ? null : <p className={css.description}>{description}</p>}
          </div>
          {actions === undefined ? null : <div className={css.actions}>{actions}</div>}
        </div>
      ) : null}
      {children}
    </section>
  )
}
