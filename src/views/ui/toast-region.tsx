/**
 * Toast region: renders the app toast queue (toast machine), newest at the bottom. Errors and warnings are
 * announced assertively (role=alert), successes and info politely (role=status). Each toast can be dismissed.
 */
import { useToastQueue, useToasts } from "../app-actors.tsx"
import type { ToastKind } from "../../machines/toast.machine.ts"
import { Button } from "./button.tsx"
import { CloseIcon, ErrorIcon, InfoIcon, SuccessIcon, WarningIcon } from "./icons.tsx"
import * as css from "./toast-region.css.ts"

const ICONS = { success: SuccessIcon, error: ErrorIcon, info: InfoIcon, warning: WarningIcon } as const

const roleOf = (kind: ToastKind): "alert" | "status" => (kind === "error" || kind === "warning" ? "alert" : "status")

export function ToastRegion() {
  const toasts = useToastQueue()
  const { dismiss } = useToasts()
  return (
    <section aria-label="Notifications" className={css.region}>
      {toasts.map((toast) => {
        const Icon = ICONS[toast.kind]
        return (
          <div key={toast.id} role={roleOf(toast.kind)} data-kind={toast.kind} className={css.toast({ kind: toast.kind })}>
            <Icon className={css.icon} />
            <p className={css.message}>{toast.message}</p>
            <Button variant="ghost" size="sm" aria-label="Dismiss notification" onPress={() => dismiss(toast.id)}>
              <CloseIcon size={16} />
            </Button>
          </div>
        )
      })}
    </section>
  )
}
