/**
 * How the Compliance screens get their effects without importing `src/services`: the composition root builds
 * `ComplianceEffects` with `complianceEffectsFrom(services)` and renders `<ComplianceEffectsProvider>`; tests render it
 * with fakes, a `SimulatedClock` and a download recorder. Small on purpose: it is imported eagerly, the screens are lazy.
 * Without a provider every call fails with the catalogue's "no response" text.
 */
import { createContext, useContext, useMemo, type ReactNode } from "react"
import { StatusMessages } from "../../contracts/messages.ts"
import type { EffectFailure } from "../../machines/auth-effects.ts"
import type { ComplianceEffects, DownloadedFile } from "../../machines/compliance-effects.ts"
import type { Clock } from "../app-actors.tsx"
import { saveFileInBrowser } from "../scanning/scan-effects-context.tsx"

export type SaveDownload = (file: DownloadedFile) => void

export interface ComplianceEnvironment {
  readonly effects: ComplianceEffects
  readonly clock: Clock | undefined
  readonly saveFile: SaveDownload
}

const noResponse: EffectFailure = { type: "NETWORK_ERROR", message: StatusMessages.noResponse }
const unwired = (): Promise<never> => Promise.reject(noResponse)

export const UNWIRED_COMPLIANCE_EFFECTS: ComplianceEffects = {
  loadAccounts: unwired,
  loadScanSummary: unwired,
  loadScanFramework: unwired,
  loadTrend: unwired,
  loadRequirement: unwired,
  downloadCsv: unwired,
  loadLatestReport: unwired,
  createReport: unwired,
  getReport: unwired,
  downloadReport: unwired,
}

/** The browser's download (the scanning screens' helper, which takes a PDF Blob as well as CSV text). */
export const saveDownloadInBrowser: SaveDownload = saveFileInBrowser

const ComplianceEffectsContext = createContext<ComplianceEnvironment>({
  effects: UNWIRED_COMPLIANCE_EFFECTS,
  clock: undefined,
  saveFile: saveDownloadInBrowser,
})

export function ComplianceEffectsProvider({
  effects,
  clock,
  saveFile = saveDownloadInBrowser,
  children,
}: {
  readonly effects: ComplianceEffects
  readonly clock?: Clock
  readonly saveFile?: SaveDownload
  readonly children: ReactNode
}) {
  const value = useMemo(() => ({ effects, clock, saveFile }), [effects, clock, saveFile])
  return <ComplianceEffectsContext value={value}>{children}</ComplianceEffectsContext>
}

export function useComplianceEnvironment(): ComplianceEnvironment {
  return useContext(ComplianceEffectsContext)
}
