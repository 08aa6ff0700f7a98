/**
 * The launch-scan dialog (scanning §2, §5, §6) over a `launchScanMachine` child: an account select, the rule
 * messages, and Launch — disabled with the tooltip 'You don't have permission to launch scans' without scan_service.
 * With no account it says 'You need to create an account before running a scan'.
 */
import { useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import type { AccountId } from "../../contracts/ids.ts"
import { ScanningMessages } from "../../contracts/messages.ts"
import { selectCanLaunch, type launchScanMachine } from "../../machines/launch-scan.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Button } from "../ui/button.tsx"
import { Dialog, DialogFooter } from "../ui/dialog.tsx"
import { Select, SelectItem } from "../ui/select.tsx"
import { Spinner } from "../ui/spinner.tsx"
import { GatedButton } from "../scanning/scan-parts.tsx"
import { PlayIcon } from "../ui/icons.tsx"
import * as css from "../scanning/scanning.css.ts"

export type LaunchScanRef = ActorRefFrom<typeof launchScanMachine>

export function LaunchScanDialog({ dialogRef }: { readonly dialogRef: LaunchScanRef }) {
  const accounts = useSelector(dialogRef, (s) => s.context.accounts)
  const selected = useSelector(dialogRef, (s) => s.context.selectedAccountId)
  const error = useSelector(dialogRef, (s) => s.context.error)
  const canLaunch = useSelector(dialogRef, selectCanLaunch)
  const isLoading = useSelector(dialogRef, (s) => s.matches("loading"))
  const loadFailed = useSelector(dialogRef, (s) => s.matches("loadFailed"))
  const noAccounts = useSelector(dialogRef, (s) => s.matches("noAccounts"))
  const isLaunching = useSelector(dialogRef, (s) => s.matches("launching"))
  const close = () => dialogRef.send({ type: "dialog.closed" })

  return (
    <Dialog
      title="Launch scan"
      isOpen
      onOpenChange={(open) => {
        if (!open) close()
      }}
      isDismissable={!isLaunching}
      isKeyboardDismissDisabled={isLaunching}
      showCloseButton={!isLaunching}
    >
      <div className={css.fieldStack}>
        {isLoading ? (
          <div className={css.stateBox}>
            <Spinner aria-label="Loading accounts" />
          </div>
        ) : loadFailed ? (
          <AlertBox
            tone="error"
            title={error ?? ScanningMessages.startScanFailed}
            action={
              <Button variant="secondary" size="sm" onPress={() => dialogRef.send({ type: "options.retryRequested" })}>
                Try again
              </Button>
            }
          />
        ) : noAccounts ? (
          <AlertBox tone="warning">{error}</AlertBox>
        ) : (
          <>
            <p className={css.muted}>Choose the cloud account to scan. The scan checks every supported service and region.</p>
            <Select
              label="Account"
              placeholder="Select an account"
              items={accounts}
              selectedKey={selected}
              onSelectionChange={(key) => dialogRef.send({ type: "account.selected", accountId: key === null ? null : (Number(key) as AccountId) })}
              isDisabled={isLaunching}
            >
              {(a) => (
                <SelectItem id={a.id} textValue={`${a.account_name} (${a.cloud_provider_name})`}>
                  {`${a.account_name} (${a.cloud_provider_name}${a.account_id === null ? "" : ` · ${a.account_id}`})`}
                </SelectItem>
              )}
            </Select>
            {error === null ? null : <AlertBox tone="error">{error}</AlertBox>}
          </>
        )}
      </div>
      <DialogFooter>
        <Button variant="secondary" onPress={close} isDisabled={isLaunching}>
          {noAccounts || loadFailed ? "Close" : "Cancel"}
        </Button>
        {noAccounts || loadFailed ? null : (
          <GatedButton
            allowed={canLaunch || isLoading}
            tooltip={ScanningMessages.launchPermissionTooltip}
            onBlockedPress={() => dialogRef.send({ type: "launch.requested" })}
            onPress={() => dialogRef.send({ type: "launch.requested" })}
            isDisabled={isLoading}
            isPending={isLaunching}
          >
            <PlayIcon size={16} />
            Launch
          </GatedButton>
        )}
      </DialogFooter>
    </Dialog>
  )
}
