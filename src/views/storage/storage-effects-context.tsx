/**
 * How the Storage page (issue 30) gets its effects without importing `src/services`: the composition root builds
 * `StorageEffects` with `storageEffectsFrom(services)` and renders `<StorageEffectsProvider>`; tests render it with
 * fakes and a `SimulatedClock`. Small on purpose: it is imported eagerly, the page is lazy.
 * Without a provider every call fails with the catalogue's "no response" text.
 */
import { createContext, useContext, useMemo, type ReactNode } from "react"
import { StatusMessages } from "../../contracts/messages.ts"
import type { EffectFailure } from "../../machines/auth-effects.ts"
import type { StorageEffects } from "../../machines/storage-effects.ts"
import type { Clock } from "../app-actors.tsx"

export type { StorageEffects } from "../../machines/storage-effects.ts"

export interface StorageEnvironment {
  readonly effects: StorageEffects
  readonly clock: Clock | undefined
}

const noResponse: EffectFailure = { type: "NETWORK_ERROR", message: StatusMessages.noResponse }
const unwired = (): Promise<never> => Promise.reject(noResponse)

export const UNWIRED_STORAGE_EFFECTS: StorageEffects = { loadStorage: unwired, saveRetention: unwired }

const StorageEffectsContext = createContext<StorageEnvironment>({ effects: UNWIRED_STORAGE_EFFECTS, clock: undefined })

export function StorageEffectsProvider({
  effects,
  clock,
  children,
}: {
  readonly effects: StorageEffects
  readonly clock?: Clock
  readonly children: ReactNode
}) {
  const value = useMemo(() => ({ effects, clock }), [effects, clock])
  return <StorageEffectsContext value={value}>{children}</StorageEffectsContext>
}

export function useStorageEnvironment(): StorageEnvironment {
  return useContext(StorageEffectsContext)
}
