/**
 * The Export button of the scan detail and findings screens: a react-aria menu with CSV, JSON and OCSF (scanning §7,
 * §9; OCSF beyond the spec). Disabled until the scan is completed (scanning §4: only completed scans export).
 */
import { Menu as AriaMenu, MenuItem as AriaMenuItem, MenuTrigger, Popover } from "react-aria-components"
import { ExportFormats } from "../../contracts/constants.ts"
import type { ExportFormat } from "../../contracts/scans.ts"
import { Button } from "../ui/button.tsx"
import * as menu from "../ui/menu.css.ts"
import { DownloadIcon } from "../ui/icons.tsx"

const LABELS: { readonly [K in ExportFormat]: string } = { csv: "CSV", json: "JSON", ocsf: "OCSF (JSON)" }

export function ExportMenu({
  isDisabled,
  isPending,
  onExport,
}: {
  readonly isDisabled: boolean
  readonly isPending: boolean
  readonly onExport: (format: ExportFormat) => void
}) {
  return (
    <MenuTrigger>
      <Button variant="secondary" isDisabled={isDisabled} isPending={isPending}>
        {isPending ? null : <DownloadIcon size={16} />}
        Export
      </Button>
      <Popover className={menu.popover} placement="bottom end" offset={8}>
        <AriaMenu className={menu.menu} aria-label="Export format" onAction={(key) => onExport(String(key) as ExportFormat)}>
          {ExportFormats.map((f) => (
            <AriaMenuItem key={f} id={f} className={menu.item({ tone: "neutral" })}>
              {LABELS[f]}
            </AriaMenuItem>
          ))}
        </AriaMenu>
      </Popover>
    </MenuTrigger>
  )
}
