/**
 * The role select of the add, edit and invite dialogs: the default roles (access §6), with loading and load-failure
 * states ('Try again' sends the dialog machine's `roles.retryRequested`).
 */
import type { RoleWithPermissions } from "../../contracts/workspaces.ts"
import { Button } from "../ui/button.tsx"
import { Select, SelectItem } from "../ui/select.tsx"
import * as css from "./team.css.ts"

export interface RoleSelectProps {
  readonly label?: string
  readonly roles: ReadonlyArray<RoleWithPermissions>
  readonly value: number | null
  readonly onChange: (roleId: number | null) => void
  readonly isLoading: boolean
  readonly loadError: string | undefined
  readonly onRetry: () => void
  readonly errorMessage?: string | undefined
  readonly isDisabled?: boolean
  readonly description?: string
  readonly "aria-label"?: string
  readonly className?: string
}

export function RoleSelect({
  label = "Role",
  roles,
  value,
  onChange,
  isLoading,
  loadError,
  onRetry,
  errorMessage,
  isDisabled = false,
  description,
  className,
  ...rest
}: RoleSelectProps) {
  // A value the list does not offer (e.g. a custom role) shows as the placeholder.
  const known = value !== null && roles.some((r) => r.id === value) ? value : null
  return (
    <div className={className}>
      <Select
        label={label}
        items={roles}
        value={known}
        onChange={(key) => onChange(key === null ? null : Number(key))}
        placeholder={isLoading ? "Loading roles…" : "Select a role"}
        isDisabled={isDisabled || isLoading || loadError !== undefined}
        isInvalid={errorMessage !== undefined}
        {...(errorMessage === undefined ? {} : { errorMessage })}
        {...(description === undefined ? {} : { description })}
        {...(rest["aria-label"] === undefined ? {} : { "aria-label": rest["aria-label"] })}
      >
        {(role) => (
          <SelectItem id={role.id} textValue={role.name}>
            {role.name}
          </SelectItem>
        )}
      </Select>
      {loadError === undefined ? null : (
        <p className={css.readOnlyNote} role="alert">
          {loadError}{" "}
          <Button variant="ghost" size="sm" onPress={onRetry}>
            Try again
          </Button>
        </p>
      )}
    </div>
  )
}
