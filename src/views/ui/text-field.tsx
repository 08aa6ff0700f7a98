/** Text field: label, input, optional description and the field's error (react-aria `FieldError`). */
import {
  FieldError,
  Input,
  Label,
  Text,
  TextField as AriaTextField,
  type TextFieldProps as AriaTextFieldProps,
  type ValidationResult,
} from "react-aria-components"
import * as css from "./text-field.css.ts"

export interface TextFieldProps extends Omit<AriaTextFieldProps, "children" | "className"> {
  readonly label: string
  readonly description?: string
  /** Shown when the field is invalid (client validation, or `isInvalid` / form `validationErrors`). */
  readonly errorMessage?: string | ((validation: ValidationResult) => string)
  readonly placeholder?: string
  readonly className?: string
}

export function TextField({ label, description, errorMessage, placeholder, className, ...props }: TextFieldProps) {
  return (
    <AriaTextField {...props} className={[css.field, className].filter(Boolean).join(" ")}>
      <Label className={css.label}>
        {label}
        {props.isRequired ? <span className={css.requiredMark} aria-hidden="true">*</span> : null}
      </Label>
      <Input className={css.control} {...(placeholder === undefined ? {} : { placeholder })} />
      <FieldHelp description={description} errorMessage={errorMessage} />
    </AriaTextField>
  )
}

/** Below a field's control: its description (when given) and its error (react-aria `FieldError`, shown when invalid). */
export function FieldHelp({ description, errorMessage }: {
  readonly description: string | undefined
  readonly errorMessage: string | ((validation: ValidationResult) => string) | undefined
}) {
  return (
    <>
      {description === undefined ? null : (
        <Text slot="description" className={css.description}>
          {description}
        </Text>
      )}
      <FieldError className={css.error}>{errorMessage}</FieldError>
    </>
  )
}
