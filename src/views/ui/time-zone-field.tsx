/**
 * A searchable time zone picker: react-aria `ComboBox` over the browser's IANA zones (`Intl.supportedValuesOf`), with
 * UTC first. Typing filters by any part of the name, case-insensitively, with spaces matching underscores ("new york"
 * finds America/New_York). Only a listed zone can be chosen; a stored zone the browser does not list stays shown.
 */
import { useMemo } from "react"
import { Button, ComboBox, Input, Label, ListBox, Popover } from "react-aria-components"
import { ChevronDownIcon } from "./icons.tsx"
import { SelectItem } from "./select.tsx"
import * as select from "./select.css.ts"
import * as field from "./text-field.css.ts"
import { FieldHelp } from "./text-field.tsx"
import * as css from "./time-zone-field.css.ts"

/** Every IANA zone the browser knows, UTC first (an empty list where Intl cannot tell). */
export const browserTimeZones = (): ReadonlyArray<string> => {
  const supported = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : []
  return ["UTC", ...supported.filter((z) => z !== "UTC")]
}

const normalise = (s: string): string => s.toLowerCase().replaceAll("_", " ")

/** Whether a zone name matches what was typed ("paris", "new york", "europe/"). */
export const timeZoneMatches = (zone: string, typed: string): boolean => normalise(zone).includes(normalise(typed.trim()))

export interface TimeZoneFieldProps {
  readonly label?: string
  readonly value: string
  readonly onChange: (zone: string) => void
  readonly description?: string
  readonly errorMessage?: string
  readonly zones?: ReadonlyArray<string>
}

export function TimeZoneField({ label = "Time zone", value, onChange, description = "Type to search, e.g. Paris or New York", errorMessage, zones }: TimeZoneFieldProps) {
  const items = useMemo(() => {
    const list = zones ?? browserTimeZones()
    return (value === "" || list.includes(value) ? list : [value, ...list]).map((id) => ({ id }))
  }, [zones, value])
  return (
    <ComboBox
      className={field.field}
      defaultItems={items}
      selectedKey={value === "" ? null : value}
      onSelectionChange={(key) => {
        if (key !== null) onChange(String(key))
      }}
      defaultFilter={timeZoneMatches}
      {...(errorMessage === undefined ? {} : { isInvalid: true })}
    >
      <Label className={field.label}>{label}</Label>
      <div className={css.control}>
        <Input className={`${field.control} ${css.input}`} />
        <Button className={css.toggle} aria-label="Show time zones">
          <ChevronDownIcon className={select.chevron} />
        </Button>
      </div>
      <FieldHelp description={description} errorMessage={errorMessage} />
      <Popover className={select.popover} offset={4}>
        <ListBox className={select.listBox}>
          {(item: { readonly id: string }) => (
            <SelectItem id={item.id} textValue={item.id}>
              {item.id}
            </SelectItem>
          )}
        </ListBox>
      </Popover>
    </ComboBox>
  )
}
