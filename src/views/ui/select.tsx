/** Select: react-aria `Select` (label, button showing the value, popover list box, description and error). */
import type { ReactNode } from "react"
import {
  Button,
  Label,
  ListBox,
  ListBoxItem,
  Popover,
  Select as AriaSelect,
  SelectValue,
  type ListBoxItemProps,
  type SelectProps as AriaSelectProps,
  type ValidationResult,
} from "react-aria-components"
import { CheckIcon, ChevronDownIcon } from "./icons.tsx"
import * as css from "./select.css.ts"
import * as field from "./text-field.css.ts"
import { FieldHelp } from "./text-field.tsx"

export interface SelectProps<T extends object> extends Omit<AriaSelectProps<T>, "children" | "className"> {
  readonly label: string
  readonly description?: string
  readonly errorMessage?: string | ((validation: ValidationResult) => string)
  readonly items?: Iterable<T>
  readonly children: ReactNode | ((item: T) => ReactNode)
  readonly className?: string
}

export function Select<T extends object>({
  label,
  description,
  errorMessage,
  items,
  children,
  className,
  ...props
}: SelectProps<T>) {
  return (
    <AriaSelect {...props} className={[field.field, className].filter(Boolean).join(" ")}>
      <Label className={field.label}>
        {label}
        {props.isRequired ? <span className={field.requiredMark} aria-hidden="true">*</span> : null}
      </Label>
      <Button className={css.trigger}>
        <SelectValue className={css.value} />
        <ChevronDownIcon className={css.chevron} />
      </Button>
      <FieldHelp description={description} errorMessage={errorMessage} />
      <Popover className={css.popover} offset={4}>
        <ListBox className={css.listBox} {...(items === undefined ? {} : { items })}>
          {children}
        </ListBox>
      </Popover>
    </AriaSelect>
  )
}

export function SelectItem({ children, ...props }: Omit<ListBoxItemProps, "className">) {
  const textValue = props.textValue ?? (typeof children === "string" ? children : undefined)
  return (
    <ListBoxItem {...props} {...(textValue === undefined ? {} : { textValue })} className={css.option}>
      {(state) => (
        <>
          <span>{typeof children === "function" ? children(state) : children}</span>
          {state.isSelected ? <CheckIcon size={16} /> : null}
        </>
      )}
    </ListBoxItem>
  )
}
