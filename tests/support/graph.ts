/**
 * Transition coverage for any XState machine (STACK.md G5, G6 and §9).
 *
 * 1. Lists every (state, event) edge with `getAdjacencyMap`, serialising states by their value only, so context
 *    (counters, queues) cannot blow up the state space.
 * 2. Drives every edge on a real actor running on a `SimulatedClock`: replays the shortest path to the edge's source,
 *    then the edge's event, and checks that the actor lands where the graph said it would.
 *    - `xstate.after.<delay>.<stateId>` events are driven by advancing the clock by that delay (named delays are
 *      resolved through the machine's `delays` implementations), so real timers fire.
 *    - `xstate.done.actor.<id>` / `xstate.error.actor.<id>` events (what an invoked actor would produce) are sent as
 *      they are; give samples with `output` / `error` in `events`.
 *    - anything else is sent to the actor; `drivers` can override how an event type is produced (e.g. advance the
 *      clock instead of sending an internally raised event).
 *    `xstate.done.state.*` (a compound state's `onDone`) is not an edge of its own: it fires inside the macrostep of
 *    the event that completed the child, so that edge covers it.
 * 3. Returns `{ total, driven, missing }` so a test can assert `driven === total` and print the count.
 * 4. Records the result for the statechart site (scripts/statechart-site.ts): for a machine of src/machines (its id is
 *    the file name in camel case), `docs/statecharts/model-coverage/<id>.json` holds `{ driven, total }` over the distinct
 *    edges of every run of that machine in this test process (a test may drive it with several inputs). One file per
 *    machine, so test workers never write the same file; rewritten only when the numbers change; no dates.
 *
 * `createTestModel` is not used because it rejects machines with `invoke` / `after` (STACK.md §9).
 */
import {
  __unsafe_getAllOwnEventDescriptors as ownEventDescriptors,
  createActor,
  SimulatedClock,
  type Actor,
  type AnyEventObject,
  type AnyStateMachine,
  type InputFrom,
  type SnapshotFrom,
} from "xstate"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { getAdjacencyMap, getShortestPaths, type AdjacencyValue, type TraversalOptions } from "xstate/graph"

export interface CoverageEdge {
  /** Serialised source state (the state value as JSON). */
  readonly source: string
  /** Event type of the edge. */
  readonly event: string
  /** Serialised state the graph predicts after the event. */
  readonly target: string
}

export interface MissingEdge extends CoverageEdge {
  readonly reason: string
}

export interface TransitionCoverage {
  readonly total: number
  readonly driven: number
  readonly missing: ReadonlyArray<MissingEdge>
  readonly edges: ReadonlyArray<CoverageEdge>
}

export interface StepContext<TMachine extends AnyStateMachine> {
  readonly actor: Actor<TMachine>
  readonly event: AnyEventObject
  readonly clock: SimulatedClock
}

export type StepDriver<TMachine extends AnyStateMachine> = (step: StepContext<TMachine>) => void | Promise<void>

export interface CoverageOptions<TMachine extends AnyStateMachine> {
  /**
   * Sample events, matched by type. Events the machine handles but that have no sample are sent as `{ type }`.
   * Include synthetic `xstate.done.actor.<id>` (with `output`) and `xstate.error.actor.<id>` (with `error`) samples.
   */
  readonly events?: ReadonlyArray<AnyEventObject>
  readonly input?: InputFrom<TMachine>
  /** Defaults to the state value as JSON (context ignored, G5). */
  readonly serializeState?: (snapshot: SnapshotFrom<TMachine>) => string
  /** Builds the actor under test (e.g. with `machine.provide({ actors: fakes })`); it must use the given clock. */
  readonly createActor?: (clock: SimulatedClock) => Actor<TMachine>
  /** Per event type: how to produce that event on the running actor instead of sending it. */
  readonly drivers?: Readonly<Record<string, StepDriver<TMachine>>>
  /** Extra assertion after each driven edge; throwing marks the edge as missing. */
  readonly check?: (edge: CoverageEdge, actor: Actor<TMachine>) => void | Promise<void>
  /** Traversal limit for the adjacency map (guards against a state space that is not finite). */
  readonly limit?: number
}

/** A descriptor ("a.b", "a.*", "*") matches an event type. */
const matchesDescriptor = (descriptor: string, type: string): boolean =>
  descriptor === type ||
  descriptor === "*" ||
  (descriptor.endsWith(".*") && type.startsWith(descriptor.slice(0, -1)))

/**
 * The events to try in a state: those its active nodes handle (incl. after/done/error events), each replaced by the
 * matching samples when some were given. Like xstate/graph's machine default, which an `events` array would replace.
 */
const eventsFor =
  (samples: ReadonlyArray<AnyEventObject>) =>
  (snapshot: Parameters<typeof ownEventDescriptors>[0]): ReadonlyArray<AnyEventObject> =>
    ownEventDescriptors(snapshot).flatMap((descriptor: string) => {
      // Raised within the same macrostep when a child reaches its final state: never sent from outside, and the
      // `onDone` transition it triggers is driven by whichever edge completes the child.
      if (descriptor.startsWith("xstate.done.state.")) return []
      const matching = samples.filter((sample) => matchesDescriptor(descriptor, sample.type))
      if (matching.length > 0) return matching
      return descriptor.includes("*") ? [] : [{ type: descriptor }]
    })

const defaultSerialize = (snapshot: { readonly value: unknown }): string => JSON.stringify(snapshot.value)

/** Delay in ms of an `xstate.after.<delay>.<stateId>` event for the actor's current snapshot. */
export const resolveAfterDelay = (actor: Actor<AnyStateMachine>, eventType: string): number => {
  const rest = eventType.slice("xstate.after.".length)
  const dot = rest.indexOf(".")
  const stateId = rest.slice(dot + 1)
  const logic = actor.logic
  const node = logic.getStateNodeById(stateId)
  const definition = node.after.find((transition) => transition.eventType === eventType)
  if (definition === undefined) throw new Error(`No delayed transition ${eventType} on ${stateId}`)
  const snapshot = actor.getSnapshot()
  const args = { context: snapshot.context, event: { type: eventType }, self: actor, system: actor.system }
  const delay = definition.delay
  if (typeof delay === "number") return delay
  if (typeof delay === "function") return delay(args, undefined)
  const named: unknown = (logic.implementations.delays as Record<string, unknown>)[delay]
  if (typeof named === "number") return named
  if (typeof named === "function") return (named as (a: typeof args) => number)(args)
  throw new Error(`Delay "${delay}" of ${eventType} is not implemented`)
}

const defaultDriver = <TMachine extends AnyStateMachine>({ actor, event, clock }: StepContext<TMachine>): void => {
  if (event.type.startsWith("xstate.after.")) {
    clock.increment(resolveAfterDelay(actor as unknown as Actor<AnyStateMachine>, event.type))
    return
  }
  actor.send(event as never)
}

/** Every (state, event) edge of `machine`, driven on a real actor. */
export const coverTransitions = async <TMachine extends AnyStateMachine>(
  machine: TMachine,
  options: CoverageOptions<TMachine> = {},
): Promise<TransitionCoverage> => {
  type Snapshot = SnapshotFrom<TMachine>
  const serialize = (options.serializeState ?? defaultSerialize) as (snapshot: Snapshot) => string
  // The machine's own generic parameters do not line up with xstate/graph's under exactOptionalPropertyTypes.
  const traversal: TraversalOptions<any, any, any> = {
    serializeState: serialize,
    events: eventsFor(options.events ?? []) as never,
    ...(options.input === undefined ? {} : { input: options.input }),
    ...(options.limit === undefined ? {} : { limit: options.limit }),
  }
  const adjacency = getAdjacencyMap(machine, traversal)
  const paths = getShortestPaths(machine, traversal)
  const pathTo = new Map<string, ReadonlyArray<AnyEventObject>>()
  for (const path of paths) {
    const events = path.steps.map((step) => step.event as AnyEventObject).filter((e) => e.type !== "xstate.init")
    pathTo.set(serialize(path.state as Snapshot), events)
  }

  const edges: CoverageEdge[] = []
  const missing: MissingEdge[] = []
  const sources = Object.entries(adjacency).sort(([a], [b]) => a.localeCompare(b))
  for (const [source, value] of sources) {
    const transitions = Object.values((value as AdjacencyValue<Snapshot, AnyEventObject>).transitions)
    for (const transition of transitions) {
      const edge: CoverageEdge = {
        source,
        event: transition.event.type,
        target: serialize(transition.state),
      }
      edges.push(edge)
      const prefix = pathTo.get(source)
      if (prefix === undefined) {
        missing.push({ ...edge, reason: "no path reaches the source state" })
        continue
      }
      const clock = new SimulatedClock()
      const actor =
        options.createActor?.(clock) ??
        (createActor(machine, {
          clock,
          ...(options.input === undefined ? {} : { input: options.input }),
        }) as unknown as Actor<TMachine>)
      try {
        actor.start()
        for (const event of [...prefix, transition.event]) {
          const driver = options.drivers?.[event.type] ?? defaultDriver
          await driver({ actor, event, clock })
        }
        const snapshot = actor.getSnapshot() as Snapshot
        const { status, error } = snapshot as unknown as { status: string; error?: unknown }
        if (status === "error") {
          missing.push({ ...edge, reason: `actor errored: ${String(error)}` })
          continue
        }
        const reached = serialize(snapshot)
        if (reached !== edge.target) {
          missing.push({ ...edge, reason: `reached ${reached}` })
          continue
        }
        await options.check?.(edge, actor)
      } catch (error) {
        missing.push({ ...edge, reason: error instanceof Error ? error.message : String(error) })
      } finally {
        actor.stop()
      }
    }
  }
  recordCoverage(machine.id, edges, missing)
  return { total: edges.length, driven: edges.length - missing.length, missing, edges }
}

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..")
export const COVERAGE_DIR = join(ROOT, "docs", "statecharts", "model-coverage")

/** Edge key → driven, per machine id, over this process's runs. */
const recorded = new Map<string, Map<string, boolean>>()

const kebab = (id: string): string => id.replace(/([a-z0-9])([A-Z])/g, "$1-$2").toLowerCase()

/** Writes `docs/statecharts/model-coverage/<id>.json` for a machine of src/machines (fixtures are not recorded). */
const recordCoverage = (id: string, edges: ReadonlyArray<CoverageEdge>, missing: ReadonlyArray<MissingEdge>): void => {
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(id) || !existsSync(join(ROOT, "src", "machines", `${kebab(id)}.machine.ts`))) return
  const key = (edge: CoverageEdge) => `${edge.source} ${edge.event} ${edge.target}`
  const failed = new Set(missing.map(key))
  const seen = recorded.get(id) ?? new Map<string, boolean>()
  recorded.set(id, seen)
  for (const edge of edges) seen.set(key(edge), seen.get(key(edge)) === true || !failed.has(key(edge)))
  const driven = [...seen.values()].filter(Boolean).length
  const content = `${JSON.stringify({ driven, total: seen.size })}\n`
  const file = join(COVERAGE_DIR, `${id}.json`)
  try {
    if (existsSync(file) && readFileSync(file, "utf8") === content) return
    mkdirSync(COVERAGE_DIR, { recursive: true })
    writeFileSync(file, content)
  } catch {
    // A read-only checkout still runs the tests; the site then shows the last committed numbers.
  }
}

/** One line for the test log: "toast: 4/4 transitions driven". */
export const formatCoverage = (name: string, coverage: TransitionCoverage): string =>
  `${name}: ${coverage.driven}/${coverage.total} transitions driven` +
  (coverage.missing.length === 0
    ? ""
    : `\n${coverage.missing.map((m) => `  missing ${m.source} --${m.event}--> ${m.target}: ${m.reason}`).join("\n")}`)
