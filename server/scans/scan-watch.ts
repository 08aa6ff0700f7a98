/**
 * One heartbeat per scan per process, not one per service job.
 *
 * A running service job proves it is alive (`scan_services.heartbeat_at`) and learns that its scan was canceled or
 * its service finished elsewhere, so it can abort its cloud calls. Every service of a scan runs at once (54 for AWS),
 * and one transaction per job every HEARTBEAT_MS made 55–96 heartbeat transactions per scan on the database that
 * also takes the scan's claims and completions. Here the jobs of one scan in one process join a group, and the
 * group's ticker sends one statement for all of them every `intervalMillis`: the ids it answers are still open, the
 * others' jobs are aborted. The ticker starts with the first job of the group and stops when the last one leaves.
 *
 * `beat` is the statement (run-service.ts gives the real one); tests pass their own.
 */
import { Effect } from "effect"

export interface WatchedJob {
  /** Called once when the beat says the job's service or scan is no longer open. */
  readonly onClosed: () => void
}

/** The statement: refreshes the heartbeat of the services `ids` and answers those still open. */
type Beat<R> = (ids: ReadonlyArray<number>) => Effect.Effect<ReadonlyArray<number>, unknown, R>

interface Group<R> {
  readonly jobs: Map<number, WatchedJob>
  readonly beat: Beat<R>
}

export class ScanWatch {
  private readonly groups = new Map<string, Group<any>>()
  private readonly intervalMillis: number

  constructor(intervalMillis: number) {
    this.intervalMillis = intervalMillis
  }

  /** Groups with a running ticker (tests). */
  get size(): number {
    return this.groups.size
  }

  /**
   * Watches job `id` of group `key` while `effect` runs. The first job of a group starts its ticker (a detached fiber
   * with the caller's services, so `beat` can use the caller's database client); the ticker ends after the beat that
   * finds the group empty.
   */
  watch<R>(
    key: string,
    id: number,
    job: WatchedJob,
    beat: Beat<R>,
  ) {
    return <A, E, R2>(effect: Effect.Effect<A, E, R2>): Effect.Effect<A, E, R | R2> =>
      Effect.acquireUseRelease(
        this.join(key, id, job, beat),
        () => effect,
        // Only its own entry: a newer attempt of the same service may have joined under the same id meanwhile.
        () => Effect.sync(() => {
          const jobs = this.groups.get(key)?.jobs
          if (jobs?.get(id) === job) jobs.delete(id)
        }),
      )
  }

  /** Adds the job to its group; the group's first job creates it and starts its ticker. */
  private join<R>(
    key: string,
    id: number,
    job: WatchedJob,
    beat: Beat<R>,
  ): Effect.Effect<void, never, R> {
    return Effect.suspend(() => {
      const existing = this.groups.get(key)
      if (existing !== undefined) {
        existing.jobs.set(id, job)
        return Effect.void
      }
      const group: Group<R> = { jobs: new Map([[id, job]]), beat }
      this.groups.set(key, group)
      return Effect.asVoid(Effect.forkDetach(this.tick(key, group)))
    })
  }

  /** Every interval: stop if the group is empty (in the same synchronous step as the check), else one beat. */
  private tick<R>(key: string, group: Group<R>) {
    const intervalMillis = this.intervalMillis
    const once = Effect.gen(function* () {
      const ids = [...group.jobs.keys()]
      const open = new Set(yield* group.beat(ids))
      for (const id of ids) {
        const job = group.jobs.get(id)
        if (job !== undefined && !open.has(id)) {
          group.jobs.delete(id)
          job.onClosed()
        }
      }
    }).pipe(Effect.catchCause(() => Effect.void)) // a beat that failed says nothing about the jobs
    const stopIfEmpty = Effect.sync(() => {
      if (group.jobs.size > 0) return false
      if (this.groups.get(key) === group) this.groups.delete(key)
      return true
    })
    return Effect.gen(function* () {
      for (;;) {
        yield* Effect.sleep(`${intervalMillis} millis`)
        if (yield* stopIfEmpty) return
        yield* once
      }
    })
  }
}
