/**
 * Dialog: react-aria `ModalOverlay` + `Modal` + `Dialog` with a titled heading. `isDismissable` (outside click closes)
 * defaults to true; the invite modal turns it off. Escape closes unless `isKeyboardDismissDisabled`. Controlled through
 * `isOpen` / `onOpenChange`, or opened by a `DialogTrigger` parent.
 */
import type { ReactNode } from "react"
import { Dialog as AriaDialog, Heading, Modal, ModalOverlay } from "react-aria-components"
import { Button } from "./button.tsx"
import { CloseIcon } from "./icons.tsx"
import * as css from "./dialog.css.ts"

export { DialogTrigger } from "react-aria-components"

export interface DialogProps {
  readonly title: string
  readonly children: ReactNode | ((helpers: { readonly close: () => void }) => ReactNode)
  readonly isOpen?: boolean
  readonly onOpenChange?: (isOpen: boolean) => void
  readonly isDismissable?: boolean
  readonly isKeyboardDismissDisabled?: boolean
  /** `alertdialog` for confirmations. */
  readonly role?: "dialog" | "alertdialog"
  readonly size?: "sm" | "md" | "lg"
  /** Shows a close button in the header (hidden while e.g. a request is pending). */
  readonly showCloseButton?: boolean
}

export function Dialog({
  title,
  children,
  isOpen,
  onOpenChange,
  isDismissable = true,
  isKeyboardDismissDisabled = false,
  role = "dialog",
  size = "md",
  showCloseButton = true,
}: DialogProps) {
  return (
    <ModalOverlay
      className={css.overlay}
      isDismissable={isDismissable}
      isKeyboardDismissDisabled={isKeyboardDismissDisabled}
      {...(isOpen === undefined ? {} : { isOpen })}
      {...(onOpenChange === undefined ? {} : { onOpenChange })}
    >
      <Modal className={css.modal({ size })}>
        <AriaDialog role={role} className={css.dialog}>
          {({ close }) => (
            <>
              <div className={css.header}>
                <Heading slot="title" className={css.heading}>
                  {title}
                </Heading>
                {showCloseButton ? (
                  <Button variant="ghost" size="icon" aria-label="Close" onPress={close}>
                    <CloseIcon />
                  </Button>
                ) : null}
              </div>
              {typeof children === "function" ? children({ close }) : children}
            </>
          )}
        </AriaDialog>
      </Modal>
    </ModalOverlay>
  )
}

export function DialogFooter({ children }: { readonly children: ReactNode }) {
  return <div className={css.footer}>{children}</div>
}
