/**
 * How the scanning screens get their effects without importing `src/services` (views never do): the composition root
 * (src/main.tsx) builds a `ScanEffects` with `scanEffectsFrom(services)` (src/services/scan-api.ts) and renders
 * `<ScanEffectsProvider effects={...}>`; tests render it with fakes, a `SimulatedClock` and a file recorder.
 *
 * This module stays small on purpose: main.tsx imports it eagerly, while the screens and their machines are lazy
 * chunks (they read the context through `useScanEnvironment`).
 *
 * Without a provider every call fails with the catalogue's "no response" text and a console warning names the missing
 * provider: the screens still render their error states.
 */
import { createContext, useContext, useMemo, type ReactNode } from "react"
import { StatusMessages } from "../../contracts/messages.ts"
import type { EffectFailure } from "../../machines/auth-effects.ts"
import type { ExportedFile, ScanEffects } from "../../machines/scan-effects.ts"
import type { Clock } from "../app-actors.tsx"

export type { ScanEffects } from "../../machines/scan-effects.ts"

/** Hands an exported file to the browser (a download named after `fileName`). */
export type SaveFile = (file: ExportedFile) => void

export interface ScanEnvironment {
  readonly effects: ScanEffects
  readonly clock: Clock | undefined
  readonly saveFile: SaveFile
}

let warned = false
const warnUnwired = () => {
  if (warned) return
  warned = true
  console.warn("Scan effects are not provided: render the app inside <ScanEffectsProvider> (src/main.tsx).")
}

const noResponse: EffectFailure = { type: "NETWORK_ERROR", message: StatusMessages.noResponse }
const unwired = (): Promise<never> => {
  warnUnwired()
  return Promise.reject(noResponse)
}

/** What the screens get without a provider. */
export const UNWIRED_SCAN_EFFECTS: ScanEffects = {
  loadProviders: unwired,
  loadAccounts: unwired,
  loadAccountDetail: unwired,
  refreshAccountDetail: unwired,
  prefetchAccountDetail: warnUnwired,
  addAccount: unwired,
  deleteAccount: unwired,
  revealSecret: unwired,
  loadExternalId: async () => null,
  loadViewer: unwired,
  startScan: unwired,
  listScans: unwired,
  getScan: unwired,
  cancelScan: unwired,
  listFindings: unwired,
  getFinding: unwired,
  remediate: unwired,
  previewRemediation: unwired,
  listRemediations: unwired,
  undoRemediation: unwired,
  exportFindings: unwired,
  listMuteRules: unwired,
  createMuteRule: unwired,
  updateMuteRule: unwired,
  deleteMuteRule: unwired,
  getSchedule: unwired,
  putSchedule: unwired,
  getDigest: unwired,
  loadPostureOverview: unwired,
  loadResourceHistory: unwired,
  putDigest: unwired,
}

/**
 * The browser's download: a Blob URL on a temporary link with the `download` attribute. Text or bytes (the Compliance
 * screens save PDF Blobs through it too).
 */
export const saveFileInBrowser = (file: Omit<ExportedFile, "content"> & { readonly content: string | Blob }): void => {
  const url = URL.createObjectURL(typeof file.content === "string" ? new Blob([file.content], { type: file.contentType }) : file.content)
  const link = document.createElement("a")
  link.href = url
  link.download = file.fileName
  link.rel = "noopener"
  link.style.display = "none"
  document.body.append(link)
  link.click()
  link.remove()
  // Revoked after the click has been handled (the download keeps its own reference).
  setTimeout(() => URL.revokeObjectURL(url), 1000)
}

const ScanEffectsContext = createContext<ScanEnvironment>({
  effects: UNWIRED_SCAN_EFFECTS,
  clock: undefined,
  saveFile: saveFileInBrowser,
})

export interface ScanEffectsProviderProps {
  readonly effects: ScanEffects
  /** Timer source for the screens' polls (a `SimulatedClock` in tests); real timers otherwise. */
  readonly clock?: Clock
  /** Replaces the browser download (tests record the files). */
  readonly saveFile?: SaveFile
  readonly children: ReactNode
}

export function ScanEffectsProvider({ effects, clock, saveFile = saveFileInBrowser, children }: ScanEffectsProviderProps) {
  const value = useMemo(() => ({ effects, clock, saveFile }), [effects, clock, saveFile])
  return <ScanEffectsContext value={value}>{children}</ScanEffectsContext>
}

export function useScanEnvironment(): ScanEnvironment {
  return useContext(ScanEffectsContext)
}
