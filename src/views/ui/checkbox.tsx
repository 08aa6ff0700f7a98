/** Checkbox: react-aria `Checkbox` (a real, labelled input) with a drawn box and check / indeterminate marks. */
import type { ReactNode } from "react"
import { Checkbox as AriaCheckbox, type CheckboxProps as AriaCheckboxProps } from "react-aria-components"
import * as css from "./checkbox.css.ts"

export interface CheckboxProps extends Omit<AriaCheckboxProps, "children" | "className"> {
  readonly children?: ReactNode
}

export function Checkbox({ children, ...props }: CheckboxProps) {
  return (
    <AriaCheckbox {...props} className={css.checkbox}>
      {({ isSelected, isIndeterminate }) => (
        <>
          <span className={css.box} aria-hidden="true">
            <svg width="12" height="12" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="4" strokeLinecap="round" strokeLinejoin="round">
              {isIndeterminate ? <path d="M5 12h14" /> : isSelected ? <path d="M20 6 9 17l-5-5" /> : null}
            </svg>
          </span>
          {children}
        </>
      )}
    </AriaCheckbox>
  )
}
