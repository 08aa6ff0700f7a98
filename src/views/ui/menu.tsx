/**
 * Menu: react-aria `MenuTrigger` + `Popover` + `Menu`. The popover defaults to the spec's row action menu geometry
 * (192 px wide, 8 px offset, 40 px items); Escape, outside click and scrolling close it (react-aria behaviour).
 */
import type { ReactNode } from "react"
import {
  Menu as AriaMenu,
  MenuItem as AriaMenuItem,
  MenuTrigger,
  Popover,
  Separator,
  type MenuItemProps as AriaMenuItemProps,
  type MenuProps as AriaMenuProps,
  type Placement,
} from "react-aria-components"
import { Button, type ButtonProps } from "./button.tsx"
import * as css from "./menu.css.ts"

export interface MenuProps<T extends object> extends Omit<AriaMenuProps<T>, "className"> {
  /** Content of the trigger button. */
  readonly trigger: ReactNode
  /** Accessible name of the trigger when its content is an icon. */
  readonly triggerLabel?: string
  readonly triggerVariant?: ButtonProps["variant"]
  readonly triggerSize?: ButtonProps["size"]
  readonly placement?: Placement
  readonly isOpen?: boolean
  readonly onOpenChange?: (isOpen: boolean) => void
}

export function Menu<T extends object>({
  trigger,
  triggerLabel,
  triggerVariant = "ghost",
  triggerSize = "md",
  placement = "bottom end",
  isOpen,
  onOpenChange,
  ...props
}: MenuProps<T>) {
  return (
    <MenuTrigger {...(isOpen === undefined ? {} : { isOpen })} {...(onOpenChange === undefined ? {} : { onOpenChange })}>
      <Button variant={triggerVariant} size={triggerSize} {...(triggerLabel === undefined ? {} : { "aria-label": triggerLabel })}>
        {trigger}
      </Button>
      <Popover className={css.popover} placement={placement} offset={8}>
        <AriaMenu {...props} className={css.menu} />
      </Popover>
    </MenuTrigger>
  )
}

export interface MenuItemProps extends Omit<AriaMenuItemProps, "className"> {
  readonly tone?: "neutral" | "danger"
}

export function MenuItem({ tone = "neutral", ...props }: MenuItemProps) {
  return <AriaMenuItem {...props} className={css.item({ tone })} />
}

export function MenuSeparator() {
  return <Separator className={css.separator} />
}
