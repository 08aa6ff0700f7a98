/**
 * Running a provider's discovery (./gcp-discovery.ts, ./azure-discovery.ts) as an Effect: interrupting it aborts its
 * requests, and so does its end: the first failed list stops the lists still running beside it, so nothing of a failed
 * discovery keeps calling the cloud afterwards. Failures go through the provider's own mapping to DiscoveryFailed.
 */
import { Effect } from "effect"
import type { DiscoveryFailed, OrganizationDiscovery } from "./discovery.ts"

export const runDiscovery = (
  work: (signal: AbortSignal) => Promise<OrganizationDiscovery>,
  toFailure: (error: unknown) => DiscoveryFailed,
): Effect.Effect<OrganizationDiscovery, DiscoveryFailed> =>
  Effect.tryPromise({
    try: async (signal) => {
      const done = new AbortController()
      try {
        return await work(AbortSignal.any([signal, done.signal]))
      } finally {
        done.abort()
      }
    },
    catch: toFailure,
  })
