/**
 * Long identifiers (ARNs, ARM ids, Google self links, resource ids) have no spaces: without help a table cell's
 * narrowest width is the whole id, and the table scrolls or the phone screen overflows. `withBreaks` adds a break
 * opportunity (<wbr>) after each "/" and ":", so an id wraps at its natural separators first
 * (`arn:aws:s3:::bucket` → `arn:` `aws:` `s3:` … `bucket`); `Identifier` also lets a separator-free run wrap anywhere
 * as a last resort.
 */
import type { ReactNode } from "react"
import { identifier } from "../scanning/scanning.css.ts"

const SEPARATOR = /([/:])/

export const withBreaks = (text: string): ReactNode => {
  if (!SEPARATOR.test(text)) return text
  const parts = text.split(SEPARATOR)
  return parts.flatMap((part, i) => (i % 2 === 1 && i < parts.length - 1 ? [part, <wbr key={i} />] : part === "" ? [] : [part]))
}

export function Identifier({ text, className }: { readonly text: string; readonly className?: string }) {
  return <span className={[identifier, className].filter(Boolean).join(" ")}>{withBreaks(text)}</span>
}
