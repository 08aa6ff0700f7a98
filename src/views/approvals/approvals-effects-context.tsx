/**
 * How the approvals inbox and the account page's approval setting (issue 32) get their effects without importing
 * `src/services`: the composition root builds `ApprovalsEffects` with `approvalsEffectsFrom(services)` and renders
 * `<ApprovalsEffectsProvider>`; tests render it with fakes. Small on purpose: it is imported eagerly, the page is lazy.
 * Without a provider every call fails with the catalogue's "no response" text.
 */
import { createContext, useContext, useMemo, type ReactNode } from "react"
import { StatusMessages } from "../../contracts/messages.ts"
import type { ApprovalsEffects } from "../../machines/approvals-effects.ts"
import type { EffectFailure } from "../../machines/auth-effects.ts"
import type { Clock } from "../app-actors.tsx"

export type { ApprovalsEffects } from "../../machines/approvals-effects.ts"

export interface ApprovalsEnvironment {
  readonly effects: ApprovalsEffects
  readonly clock: Clock | undefined
}

const noResponse: EffectFailure = { type: "NETWORK_ERROR", message: StatusMessages.noResponse }
const unwired = (): Promise<never> => Promise.reject(noResponse)

export const UNWIRED_APPROVALS_EFFECTS: ApprovalsEffects = {
  listRequests: unwired,
  decide: unwired,
  loadApprovalSetting: unwired,
  saveApprovalSetting: unwired,
}

const ApprovalsEffectsContext = createContext<ApprovalsEnvironment>({ effects: UNWIRED_APPROVALS_EFFECTS, clock: undefined })

export function ApprovalsEffectsProvider({
  effects,
  clock,
  children,
}: {
  readonly effects: ApprovalsEffects
  readonly clock?: Clock
  readonly children: ReactNode
}) {
  const value = useMemo(() => ({ effects, clock }), [effects, clock])
  return <ApprovalsEffectsContext value={value}>{children}</ApprovalsEffectsContext>
}

export function useApprovalsEnvironment(): ApprovalsEnvironment {
  return useContext(ApprovalsEffectsContext)
}
