/** The statechart docs generator (scripts/statecharts.ts) on machines using every feature it has to draw. */
import { describe, expect, it } from "vitest"
import { assign, fromPromise, not, setup } from "xstate"
import {
  describeMachine,
  diffSummary,
  headerComment,
  renderIndex,
  renderMachineFile,
  renderMermaid,
} from "../../scripts/statecharts.ts"
import { fetchMachine } from "./fetcher.fixture.ts"
import { loadingOverlayMachine } from "../../src/machines/loading-overlay.machine.ts"

const editorMachine = setup({
  types: { context: {} as { dirty: boolean }, events: {} as { type: "text.changed" } | { type: "app.reset" } },
  actors: { save: fromPromise(async () => undefined) },
  guards: { isDirty: ({ context }) => context.dirty, isOnline: () => true },
  actions: { markDirty: assign({ dirty: true }), clear: assign({ dirty: false }) },
}).createMachine({
  id: "editor",
  context: { dirty: false },
  type: "parallel",
  on: { "app.reset": { target: ".document.clean", actions: "clear" } },
  states: {
    document: {
      initial: "clean",
      states: {
        clean: { on: { "text.changed": { target: "dirty", actions: "markDirty" } } },
        dirty: { always: { guard: not("isOnline"), target: "clean" }, invoke: { src: "save", id: "autosave" } },
      },
    },
    network: { initial: "online", states: { online: {} } },
  },
})

describe("statechart docs generator", () => {
  it("describes nested, final, delayed and invoked transitions of a machine", () => {
    const description = describeMachine("fetchMachine", fetchMachine)
    expect(description.states.map((s) => s.path.join("."))).toEqual([
      "idle",
      "loading",
      "waiting",
      "loaded",
      "loaded.reviewing",
      "loaded.accepted",
      "failed",
      "done",
    ])
    const rows = description.transitions.map(
      (r) => `${r.source.path.join(".")} | ${r.event} | ${r.guard} | ${r.targets.map((t) => t.path.join(".")).join(",")} | ${r.actions.join(",")}`,
    )
    expect(rows).toEqual([
      "idle | fetch.requested |  | loading | ",
      "loading | fetch.cancelled |  | idle | ",
      "loading | done(fetchRows) |  | loaded | assignRows",
      "loading | error(fetchRows) | isTransient | waiting | ",
      "loading | error(fetchRows) |  | failed | ",
      // A computed delay has no fixed number of milliseconds: it keeps its name.
      "waiting | after retryDelay |  | loading | ",
      "loaded | onDone |  | done | ",
      "loaded.reviewing | rows.accepted |  | loaded.accepted | ",
      "failed | fetch.requested |  | loading | ",
    ])
    const mermaid = renderMermaid(description)
    expect(mermaid.split("\n")).toEqual(
      expect.arrayContaining([
        "stateDiagram-v2",
        "  [*] --> idle",
        "  state loaded {",
        "    [*] --> loaded_reviewing",
        '    state "accepted" as loaded_accepted',
        "    loaded_accepted --> [*]",
        "    loaded_reviewing --> loaded_accepted: rows.accepted",
        "  loading --> loaded: done(fetchRows) / assignRows",
        "  loading --> waiting: error(fetchRows) [isTransient]",
        "  waiting --> loading: after retryDelay",
        "  done --> [*]",
      ]),
    )
  })

  it("shows fixed delays in milliseconds", () => {
    const mermaid = renderMermaid(describeMachine("loadingOverlayMachine", loadingOverlayMachine))
    expect(mermaid).toContain("visible --> hidden: after 30000ms / clearOverlay")
    expect(mermaid).toContain("visible --> visible: overlay.shown / assignOverlay (reenter)")
    expect(mermaid).toContain("visible --> visible: overlay.progressed / assignProgress")
  })

  it("draws parallel regions, eventless transitions, negated guards and machine-level transitions", () => {
    const description = describeMachine("editorMachine", editorMachine)
    const mermaid = renderMermaid(description)
    const lines = mermaid.split("\n")
    const document = lines.indexOf("  state document {")
    const separator = lines.indexOf("  --")
    const network = lines.indexOf("  state network {")
    expect(document).toBeGreaterThan(0)
    expect(separator).toBeGreaterThan(document)
    expect(network).toBeGreaterThan(separator)
    expect(mermaid).toContain("document_dirty --> document_clean: always [!isOnline]")
    expect(mermaid).toContain("in any state, app.reset / clear -> document.clean")
    const file = renderMachineFile("src/machines/editor.machine.ts", "Purpose.", [description])
    expect(file).toContain("| `document.dirty` | atomic |  |  | `save as autosave` |  |  |")
    expect(file).toContain("| `(machine)` | `app.reset` |  | `document.clean` | `clear` |")
  })

  it("writes a page with the header comment and an index with counts", () => {
    const header = headerComment("/**\n * Fetches rows.\n *\n * Events: `fetch.requested`.\n */\nimport x from 'y'\n")
    expect(header).toBe("Fetches rows.\n\nEvents: `fetch.requested`.")
    const description = describeMachine("fetchMachine", fetchMachine)
    const page = renderMachineFile("src/machines/fetch.machine.ts", header, [description])
    expect(page).toContain("# fetch.machine")
    expect(page).toContain("Fetches rows.")
    expect(page).toContain("8 states, 9 transitions.")
    expect(page).toContain("```mermaid\nstateDiagram-v2\n")
    expect(page).toContain("| `waiting` | `after retryDelay` |  | `loading` |  |")
    expect(page).not.toMatch(/\d{4}-\d{2}-\d{2}/)
    expect(renderMachineFile("src/machines/fetch.machine.ts", header, [description])).toBe(page)
    const index = renderIndex([{ docFile: "fetch.machine.md", sourceFile: "src/machines/fetch.machine.ts", description }])
    expect(index).toContain("| [fetcher](fetch.machine.md) | `fetchMachine` | `src/machines/fetch.machine.ts` | 8 | 9 |")
    expect(index).toContain("1 machines, 8 states, 9 transitions.")
  })

  it("summarises what changed for docs:check", () => {
    expect(diffSummary("a\nb\nc\n", "a\nB\nc\n")).toEqual(["  1 line(s) differ", "    line 2 - B", "    line 2 + b"])
  })
})
