/**
 * The header's user menu (access §2 "Layouts"): the trigger shows the workspace name and 'Owner' or the role; the
 * entries are Switch workspace (only with more than one workspace), Users (only with a user-management permission),
 * Approvals and Remediation batches (members with remediate_findings, issue 32), Storage, Account groups and Integrations (workspace admins only, issues 30, 31 and 33), Profile and Sign out. Which entries show comes from `snapshot.can(event)` on the shell machine; choosing one sends it.
 */
import { useSelector } from "@xstate/react"
import { Button as AriaButton, Header, Menu, MenuSection, MenuTrigger, Popover, type Key } from "react-aria-components"
import { roleSummary } from "../../machines/shell.machine.ts"
import { ClipboardCheckIcon, BuildingIcon, ShieldCheckIcon, ChevronDownIcon, CrownIcon, LinkIcon, LogOutIcon, SendIcon, ServerIcon, SwitchIcon, UserIcon, UsersIcon } from "../ui/icons.tsx"
import { MenuItem, MenuSeparator } from "../ui/menu.tsx"
import * as menuCss from "../ui/menu.css.ts"
import { useShellActor } from "./shell-actor-context.tsx"
import { initialOf } from "./sidebar.tsx"
import * as css from "./shell.css.ts"

export const USERS_HREF = "/dashboard/users"
export const PROFILE_HREF = "/dashboard/profile"
export const STORAGE_HREF = "/dashboard/storage"
export const APPROVALS_HREF = "/dashboard/approvals"
export const REMEDIATION_BATCHES_HREF = "/dashboard/remediations/batches"
export const ACCOUNT_GROUPS_HREF = "/dashboard/settings/account-groups"
export const INTEGRATIONS_HREF = "/dashboard/settings/integrations"
export const SSO_HREF = "/dashboard/settings/sso"
export const WEBHOOKS_HREF = "/dashboard/settings/webhooks"
export const API_KEYS_HREF = "/dashboard/settings/api-keys"

export function UserMenu() {
  const shell = useShellActor()
  const data = useSelector(shell, (s) => s.context.data)
  const canSwitch = useSelector(shell, (s) => s.can({ type: "workspace.switchRequested" }))
  const canManageUsers = useSelector(shell, (s) => s.can({ type: "navigation.requested", to: USERS_HREF }))
  const canSeeStorage = useSelector(shell, (s) => s.can({ type: "navigation.requested", to: STORAGE_HREF }))
  const canSeeApprovals = useSelector(shell, (s) => s.can({ type: "navigation.requested", to: APPROVALS_HREF }))
  const canSeeBatches = useSelector(shell, (s) => s.can({ type: "navigation.requested", to: REMEDIATION_BATCHES_HREF }))
  const canSeeAccountGroups = useSelector(shell, (s) => s.can({ type: "navigation.requested", to: ACCOUNT_GROUPS_HREF }))
  const canSeeIntegrations = useSelector(shell, (s) => s.can({ type: "navigation.requested", to: INTEGRATIONS_HREF }))
  const canSeeSso = useSelector(shell, (s) => s.can({ type: "navigation.requested", to: SSO_HREF }))
  const canSeeApiKeys = useSelector(shell, (s) => s.can({ type: "navigation.requested", to: API_KEYS_HREF }))
  const canSeeWebhooks = useSelector(shell, (s) => s.can({ type: "navigation.requested", to: WEBHOOKS_HREF }))
  const canSignOut = useSelector(shell, (s) => s.can({ type: "signOut.requested" }))

  const onAction = (key: Key) => {
    switch (key) {
      case "switch-workspace":
        return shell.send({ type: "workspace.switchRequested" })
      case "users":
        return shell.send({ type: "navigation.requested", to: USERS_HREF })
      case "storage":
        return shell.send({ type: "navigation.requested", to: STORAGE_HREF })
      case "approvals":
        return shell.send({ type: "navigation.requested", to: APPROVALS_HREF })
      case "remediation-batches":
        return shell.send({ type: "navigation.requested", to: REMEDIATION_BATCHES_HREF })
      case "account-groups":
        return shell.send({ type: "navigation.requested", to: ACCOUNT_GROUPS_HREF })
      case "integrations":
        return shell.send({ type: "navigation.requested", to: INTEGRATIONS_HREF })
      case "sso":
        return shell.send({ type: "navigation.requested", to: SSO_HREF })
      case "api-keys":
        return shell.send({ type: "navigation.requested", to: API_KEYS_HREF })
      case "webhooks":
        return shell.send({ type: "navigation.requested", to: WEBHOOKS_HREF })
      case "profile":
        return shell.send({ type: "navigation.requested", to: PROFILE_HREF })
      case "sign-out":
        return shell.send({ type: "signOut.requested" })
    }
  }

  const workspace = data?.workspaceName ?? "Workspace"
  const role = roleSummary(data)
  return (
    <MenuTrigger>
      {/* Named by its visible text (workspace and role), which phones keep for screen readers only. */}
      <AriaButton className={css.menuTrigger}>
        <span className={css.avatar} aria-hidden="true">
          {initialOf(data)}
        </span>
        <span className={css.menuTriggerText}>
          <span className={css.menuWorkspace}>{workspace}</span>
          {role === "" ? null : (
            <span className={css.menuRole}>
              {data?.isOwner === true ? <CrownIcon size={12} /> : null}
              {role}
            </span>
          )}
        </span>
        <ChevronDownIcon size={16} />
      </AriaButton>
      <Popover className={`${menuCss.popover} ${css.popover}`} placement="bottom end" offset={8}>
        <Menu className={menuCss.menu} onAction={onAction}>
          <MenuSection>
            <Header className={css.menuHeader}>
              <span className={css.menuHeaderEmail}>{data?.email ?? ""}</span>
              <span className={css.menuHeaderMeta}>
                {workspace}
                {role === "" ? "" : ` · ${role}`}
              </span>
            </Header>
            {canSwitch ? (
              <MenuItem id="switch-workspace" textValue="Switch workspace">
                <SwitchIcon />
                Switch workspace
              </MenuItem>
            ) : null}
            {canManageUsers ? (
              <MenuItem id="users" textValue="Users">
                <UsersIcon />
                Users
              </MenuItem>
            ) : null}
            {canSeeStorage ? (
              <MenuItem id="storage" textValue="Storage">
                <ServerIcon />
                Storage
              </MenuItem>
            ) : null}
            {canSeeAccountGroups ? (
              <MenuItem id="account-groups" textValue="Account groups">
                <BuildingIcon />
                Account groups
              </MenuItem>
            ) : null}
            {canSeeIntegrations ? (
              <MenuItem id="integrations" textValue="Integrations">
                <LinkIcon />
                Integrations
              </MenuItem>
            ) : null}
            {canSeeSso ? (
              <MenuItem id="sso" textValue="Single sign-on">
                <LinkIcon />
                Single sign-on
              </MenuItem>
            ) : null}
            {canSeeWebhooks ? (
              <MenuItem id="webhooks" textValue="Webhooks">
                <SendIcon />
                Webhooks
              </MenuItem>
            ) : null}
            {canSeeApiKeys ? (
              <MenuItem id="api-keys" textValue="API keys">
                <LinkIcon />
                API keys
              </MenuItem>
            ) : null}
            {canSeeApprovals ? (
              <MenuItem id="approvals" textValue="Approvals">
                <ClipboardCheckIcon />
                Approvals
              </MenuItem>
            ) : null}
            {canSeeBatches ? (
              <MenuItem id="remediation-batches" textValue="Remediation batches">
                <ShieldCheckIcon />
                Remediation batches
              </MenuItem>
            ) : null}
            <MenuItem id="profile" textValue="Profile">
              <UserIcon />
              Profile
            </MenuItem>
          </MenuSection>
          <MenuSeparator />
          <MenuSection>
            <MenuItem id="sign-out" textValue="Sign out" tone="danger" isDisabled={!canSignOut}>
              <LogOutIcon />
              Sign out
            </MenuItem>
          </MenuSection>
        </Menu>
      </Popover>
    </MenuTrigger>
  )
}
