/**
 * How the Account groups page (issue 31 item 5) gets its effects without importing `src/services`: the composition root builds
 * `AccountGroupsEffects` with `accountGroupsEffectsFrom(services)` and renders `<AccountGroupsEffectsProvider>`; tests render it with
 * fakes and a `SimulatedClock`. Small on purpose: it is imported eagerly, the page is lazy.
 * Without a provider every call fails with the catalogue's "no response" text.
 */
import { createContext, useContext, useMemo, type ReactNode } from "react"
import { StatusMessages } from "../../contracts/messages.ts"
import type { EffectFailure } from "../../machines/auth-effects.ts"
import type { AccountGroupsEffects } from "../../machines/account-groups-effects.ts"
import type { Clock } from "../app-actors.tsx"

export type { AccountGroupsEffects } from "../../machines/account-groups-effects.ts"

export interface AccountGroupsEnvironment {
  readonly effects: AccountGroupsEffects
  readonly clock: Clock | undefined
}

const noResponse: EffectFailure = { type: "NETWORK_ERROR", message: StatusMessages.noResponse }
const unwired = (): Promise<never> => Promise.reject(noResponse)

export const UNWIRED_ACCOUNT_GROUPS_EFFECTS: AccountGroupsEffects = {
  loadAccountGroups: unwired,
  saveAccountGroup: unwired,
  deleteAccountGroup: unwired,
  loadCustomRoles: unwired,
  saveCustomRole: unwired,
  deleteCustomRole: unwired,
}

const AccountGroupsEffectsContext = createContext<AccountGroupsEnvironment>({ effects: UNWIRED_ACCOUNT_GROUPS_EFFECTS, clock: undefined })

export function AccountGroupsEffectsProvider({
  effects,
  clock,
  children,
}: {
  readonly effects: AccountGroupsEffects
  readonly clock?: Clock
  readonly children: ReactNode
}) {
  const value = useMemo(() => ({ effects, clock }), [effects, clock])
  return <AccountGroupsEffectsContext value={value}>{children}</AccountGroupsEffectsContext>
}

export function useAccountGroupsEnvironment(): AccountGroupsEnvironment {
  return useContext(AccountGroupsEffectsContext)
}
