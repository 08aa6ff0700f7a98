/**
 * What the service jobs of one scan share inside one worker process (issue 5 "Performance"):
 *
 * - ONE limiter: every API call of the scan in this process goes through it, so the scan keeps the endpoint at its best
 *   concurrency from the first call to the last, whatever the number of service jobs running. A long service (S3, with
 *   several calls per bucket) gets every slot the finished services free, instead of being the scan's lone long pole
 *   at one job's share.
 * - ONE memo of the reads several services make (`sharedReads`): the caller identity, the region list, the bucket
 *   list, each bucket's location, logging, versioning and Object Lock (S3 and CloudTrail both read them); a 404
 *   ("not configured") is an answer too and is shared like one. The first job to ask sends the call;
 *   the others await its answer. Only these small answers are kept (a few hundred bytes per bucket), and only while the
 *   scan has jobs here plus a short grace, so the next job of the scan finds them too.
 * - ONE keep-alive HTTP handler: every client of the scan's service jobs sends through the same connection pool, so a
 *   job reuses the connections earlier jobs opened (to the same endpoint) instead of opening its own, and the sockets
 *   are closed when the share is dropped.
 * - ONE client set (`scanClients`): each SDK client (service, region) is built and configured once per scan, not once
 *   per service job (a fresh client's first call costs about 1–2 ms of CPU more than a built client's; every job asks
 *   STS and EC2 and most ask a client another job built). Each job still counts its own calls (clients.ts
 *   `countCalls`).
 *
 * Jobs of the same scan in other worker processes have their own share: correct, just less deduplicated.
 */
import { createHash } from "node:crypto"
import type { NodeHttpHandler } from "@smithy/node-http-handler"
import { makeLimiter, type Limiter } from "../pool.ts"
import { makeAwsClients, makeHttpHandler, type AwsClientOptions, type AwsClients } from "./clients.ts"

/** `Client.Command` names whose answers are shared between the service jobs of a scan (read-only, account-wide). */
export const sharedReads: ReadonlySet<string> = new Set([
  "STSClient.GetCallerIdentityCommand",
  "EC2Client.DescribeRegionsCommand",
  "S3Client.ListBucketsCommand",
  "S3Client.GetBucketLocationCommand",
  // CloudTrail's trail-bucket checks (access logging, MFA delete, Object Lock) read what the S3 service reads for
  // every bucket.
  "S3Client.GetBucketLoggingCommand",
  "S3Client.GetBucketVersioningCommand",
  "S3Client.GetObjectLockConfigurationCommand",
  "AccessAnalyzerClient.ListAnalyzersCommand",
])

export interface ScanShare {
  /** Bounds the scan's API calls in flight in this process. */
  readonly limiter: Limiter
  /** Answers of `sharedReads`, by region, command and input. */
  readonly reads: Map<string, Promise<unknown>>
  /** The connection pool every client of the scan sends through (closed when the share is dropped). */
  readonly http: NodeHttpHandler
  /** The scan's client sets, by credentials and settings (`scanClients`; closed when the share is dropped). */
  readonly clients: Map<string, AwsClients>
}

/**
 * The scan's clients for these credentials and settings: built by the first job that asks, reused by the others; they
 * send through the share's connection pool and share its reads (`sharedReads`). Not for jobs with a command stub
 * (tests), whose answers must not reach other jobs' clients.
 */
export function scanClients(
  share: ScanShare,
  options: Omit<AwsClientOptions, "requestHandler" | "shared" | "stub" | "maxSockets" | "requestTimeoutMs">,
): AwsClients {
  const c = options.credentials
  // The secret is kept out of the key (only a digest of it): the map lives as long as the scan's share.
  const secret = createHash("sha256").update(`${c.secretAccessKey}\u0000${c.sessionToken ?? ""}`).digest("hex")
  const key = JSON.stringify([c.accessKeyId, secret, c.roleArn, c.externalId, c.roleSessionName, options.endpoint, options.homeRegion, options.maxAttempts])
  let clients = share.clients.get(key)
  if (clients === undefined) {
    clients = makeAwsClients({ ...options, requestHandler: share.http, shared: { commands: sharedReads, reads: share.reads } })
    share.clients.set(key, clients)
  }
  return clients
}

interface Entry {
  readonly share: ScanShare
  users: number
  timer: ReturnType<typeof setTimeout> | undefined
}

/** How long a scan's share outlives its last running job in this process. */
export const SHARE_GRACE_MS = 30_000

const entries = new Map<string, Entry>()

/**
 * The share of scan `key` (created on first use with `concurrency` slots); `release` when the job ends. The last
 * release drops the share after SHARE_GRACE_MS unless another job of the scan acquires it meanwhile.
 */
export function acquireScanShare(key: string, concurrency: number): { readonly share: ScanShare; release(): void } {
  let entry = entries.get(key)
  if (entry === undefined) {
    entry = { share: { limiter: makeLimiter(concurrency), reads: new Map(), http: makeHttpHandler(), clients: new Map() }, users: 0, timer: undefined }
    entries.set(key, entry)
  }
  if (entry.timer !== undefined) {
    clearTimeout(entry.timer)
    entry.timer = undefined
  }
  entry.users++
  const held = entry
  let released = false
  return {
    share: held.share,
    release() {
      if (released) return
      released = true
      held.users--
      if (held.users > 0) return
      held.timer = setTimeout(() => {
        if (held.users === 0 && entries.get(key) === held) {
          entries.delete(key)
          for (const clients of held.share.clients.values()) clients.destroy()
          held.share.clients.clear()
          held.share.http.destroy()
        }
      }, SHARE_GRACE_MS)
      held.timer.unref()
    },
  }
}

/** Scans with a share in this process (tests, diagnostics). */
export const activeScanShares = (): ReadonlyArray<string> => [...entries.keys()]
