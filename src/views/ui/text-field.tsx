/** Text field: label, input, optional description and the field's error (react-aria `FieldError`). */
import {
  FieldError,
  Input,
  Label,
  Text,
  TextArea,
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
  /** A multi-line text area of this many rows (a pasted PEM keeps its line breaks) instead of a one-line input. */
  readonly rows?: number
  /** The text area in a fixed-width font (keys, certificates). */
  readonly monospace?: boolean
}

export function TextField({ label, description, errorMessage, placeholder, className, rows, monospace = false, ...props }: TextFieldProps) {
  return (
    <AriaTextField {...props} className={[css.field, className].filter(Boolean).join(" ")}>
      <Label className={css.label}>
        {label}
        {props.isRequired ? <span className={css.requiredMark} aria-hidden="true">*</span> : null}
      </Label>
      {rows === undefined ? (
        <Input className={css.control} {...(placeholder === undefined ? {} : { placeholder })} />
      ) : (
        <TextArea
          className={[css.control, css.multiline, monospace ? css.monospace : undefined].filter(Boolean).join(" ")}
          rows={rows}
          {...(placeholder === undefined ? {} : { placeholder })}
        />
      )}
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
