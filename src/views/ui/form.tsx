/**
 * Form: react-aria `Form` (native submit, `validationErrors` from the server shown on the matching fields) laid out as
 * a column, plus `FormActions` for the button row.
 */
import type { ReactNode } from "react"
import { Form as AriaForm, type FormProps as AriaFormProps } from "react-aria-components"
import * as css from "./form.css.ts"

export interface FormProps extends Omit<AriaFormProps, "className"> {
  readonly className?: string
}

export function Form({ className, ...props }: FormProps) {
  return <AriaForm {...props} className={[css.form, className].filter(Boolean).join(" ")} />
}

export function FormActions({ children }: { readonly children: ReactNode }) {
  return <div className={css.actions}>{children}</div>
}
