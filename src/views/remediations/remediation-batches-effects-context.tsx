/**
 * How the bulk remediation pages (issue 32 part 4) get their effects without importing `src/services`: the composition
 * root builds `RemediationBatchesEffects` with `remediationBatchesEffectsFrom(services)` and renders
 * `<RemediationBatchesEffectsProvider>`; tests render it with fakes. Small on purpose: it is imported eagerly, the
 * pages are lazy. Without a provider every call fails with the catalogue's "no response" text.
 */
import { createContext, useContext, useMemo, type ReactNode } from "react"
import { StatusMessages } from "../../contracts/messages.ts"
import type { EffectFailure } from "../../machines/auth-effects.ts"
import type { RemediationBatchesEffects } from "../../machines/remediation-batches-effects.ts"
import type { Clock } from "../app-actors.tsx"

export type { RemediationBatchesEffects } from "../../machines/remediation-batches-effects.ts"

export interface RemediationBatchesEnvironment {
  readonly effects: RemediationBatchesEffects
  readonly clock: Clock | undefined
}

const noResponse: EffectFailure = { type: "NETWORK_ERROR", message: StatusMessages.noResponse }
const unwired = (): Promise<never> => Promise.reject(noResponse)

export const UNWIRED_REMEDIATION_BATCHES_EFFECTS: RemediationBatchesEffects = {
  createBatch: unwired,
  listBatches: unwired,
  loadBatch: unwired,
  loadItems: unwired,
  stopBatch: unwired,
  undoBatch: unwired,
}

const RemediationBatchesContext = createContext<RemediationBatchesEnvironment>({ effects: UNWIRED_REMEDIATION_BATCHES_EFFECTS, clock: undefined })

export function RemediationBatchesEffectsProvider({
  effects,
  clock,
  children,
}: {
  readonly effects: RemediationBatchesEffects
  readonly clock?: Clock
  readonly children: ReactNode
}) {
  const value = useMemo(() => ({ effects, clock }), [effects, clock])
  return <RemediationBatchesContext value={value}>{children}</RemediationBatchesContext>
}

export function useRemediationBatchesEnvironment(): RemediationBatchesEnvironment {
  return useContext(RemediationBatchesContext)
}
