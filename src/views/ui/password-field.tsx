/**
 * Password field: a text field whose value can be revealed with an accessible toggle button (a react-aria
 * `ToggleButton`: aria-pressed reflects the state, the label says what pressing does).
 */
import { useState } from "react"
import {
  Input,
  Label,
  TextField as AriaTextField,
  ToggleButton,
  type TextFieldProps as AriaTextFieldProps,
  type ValidationResult,
} from "react-aria-components"
import { EyeIcon, EyeOffIcon } from "./icons.tsx"
import * as css from "./password-field.css.ts"
import * as field from "./text-field.css.ts"
import { FieldHelp } from "./text-field.tsx"

export interface PasswordFieldProps extends Omit<AriaTextFieldProps, "children" | "className" | "type"> {
  readonly label: string
  readonly description?: string
  readonly errorMessage?: string | ((validation: ValidationResult) => string)
  readonly placeholder?: string
  readonly className?: string
  /** Controlled visibility (e.g. forms that reset their toggles after a successful change). */
  readonly isRevealed?: boolean
  readonly onRevealedChange?: (revealed: boolean) => void
}

export function PasswordField({
  label,
  description,
  errorMessage,
  placeholder,
  className,
  isRevealed,
  onRevealedChange,
  ...props
}: PasswordFieldProps) {
  const [ownRevealed, setOwnRevealed] = useState(false)
  const revealed = isRevealed ?? ownRevealed
  const setRevealed = (next: boolean) => {
    setOwnRevealed(next)
    onRevealedChange?.(next)
  }
  return (
    <AriaTextField
      autoComplete="current-password"
      {...props}
      type={revealed ? "text" : "password"}
      className={[field.field, className].filter(Boolean).join(" ")}
    >
      <Label className={field.label}>
        {label}
        {props.isRequired ? <span className={field.requiredMark} aria-hidden="true">*</span> : null}
      </Label>
      <div className={css.inputWrap}>
        <Input className={`${field.control} ${css.input}`} {...(placeholder === undefined ? {} : { placeholder })} />
        <ToggleButton
          className={css.toggle}
          isSelected={revealed}
          onChange={setRevealed}
          aria-label={revealed ? "Hide password" : "Show password"}
          {...(props.isDisabled === undefined ? {} : { isDisabled: props.isDisabled })}
        >
          {revealed ? <EyeOffIcon /> : <EyeIcon />}
        </ToggleButton>
      </div>
      <FieldHelp description={description} errorMessage={errorMessage} />
    </AriaTextField>
  )
}
