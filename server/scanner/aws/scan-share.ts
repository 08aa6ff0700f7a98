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
 *
 * Jobs of the same scan in other worker processes have their own share: correct, just less deduplicated.
 */
import type { NodeHttpHandler } from "@smithy/node-http-handler"
import { makeLimiter, type Limiter } from "../pool.ts"
import { makeHttpHandler } from "./clients.ts"

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
    entry = { share: { limiter: makeLimiter(concurrency), reads: new Map(), http: makeHttpHandler() }, users: 0, timer: undefined }
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
          held.share.http.destroy()
        }
      }, SHARE_GRACE_MS)
      held.timer.unref()
    },
  }
}

/** Scans with a share in this process (tests, diagnostics). */
export const activeScanShares = (): ReadonlyArray<string> => [...entries.keys()]
