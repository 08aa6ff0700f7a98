/**
 * A row's action menu (access §2 "Row action menu"): the kit's react-aria menu, opened and closed through the table's
 * `rowActionMenuMachine` actor — so Escape, an outside click (react-aria) and a scroll or resize (the machine's
 * viewport watcher) all close it, and only one row's menu is open at a time.
 */
import type { ComponentType } from "react"
import { useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import type { rowActionMenuMachine } from "../../machines/row-action-menu.machine.ts"
import { Menu, MenuItem } from "../ui/menu.tsx"
import { MoreVerticalIcon, type IconProps } from "../ui/icons.tsx"
import * as css from "./team.css.ts"

export type RowMenuRef = ActorRefFrom<typeof rowActionMenuMachine>

export interface RowAction {
  readonly id: string
  readonly label: string
  readonly icon: ComponentType<IconProps>
  readonly tone?: "neutral" | "danger"
  readonly isDisabled?: boolean
  readonly onAction: () => void
}

export interface RowActionMenuProps {
  readonly menuRef: RowMenuRef
  readonly rowId: string
  /** Accessible name of the trigger, e.g. "Actions for Grace Hopper". */
  readonly label: string
  readonly actions: ReadonlyArray<RowAction>
}

export function RowActionMenu({ menuRef, rowId, label, actions }: RowActionMenuProps) {
  const isOpen = useSelector(menuRef, (s) => s.context.openRowId === rowId)
  const disabledKeys = actions.filter((a) => a.isDisabled === true).map((a) => a.id)
  return (
    <Menu
      trigger={<MoreVerticalIcon />}
      triggerLabel={label}
      triggerSize="icon"
      isOpen={isOpen}
      onOpenChange={(open) => menuRef.send(open ? { type: "menu.opened", rowId } : { type: "menu.closed" })}
      onAction={(key) => actions.find((a) => a.id === key)?.onAction()}
      disabledKeys={disabledKeys}
      aria-label={label}
    >
      {actions.map(({ id, label: text, icon: Icon, tone = "neutral" }) => (
        <MenuItem key={id} id={id} textValue={text} tone={tone}>
          <Icon size={16} className={tone === "danger" ? undefined : css.menuItemIcon} />
          {text}
        </MenuItem>
      ))}
    </Menu>
  )
}
