/**
 * The statechart site generator (scripts/statechart-site.ts via scripts/statecharts.ts): every machine has a page and
 * a diagram, every state and event of a machine appears on its page, the SVG has one box per state, doc comments
 * become descriptions, coverage is shown, and the pages carry no script and no inline style (the server's CSP).
 */
import { readdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { fromPromise, setup } from "xstate"
import {
  AREAS,
  areaOf,
  docCommentsOf,
  eventBulletsOf,
  kebab,
  OTHER_AREA,
  renderMachinePage,
  renderSiteIndex,
  renderSvg,
} from "../../scripts/statechart-site.ts"
import { describeMachine, generate, generateSite, siteMachineOf } from "../../scripts/statecharts.ts"
import { sessionMachine } from "../../src/machines/session.machine.ts"
import { fetchMachine } from "./fetcher.fixture.ts"

const MACHINES_DIR = join(import.meta.dirname, "..", "..", "src", "machines")

const SOURCE = `/**
 * Upload: sends a file.
 *
 * Events accepted:
 * - \`file.chosen\` { file } — the user picked a file to send.
 * - \`upload.cancelled\` / \`upload.reset\` — stop and start over.
 */
export const uploadMachine = setup({
  actors: {
    /** Sends the file to the server. */
    send: fromPromise(async () => undefined),
  },
  guards: {
    /** The file is small enough. */
    isSmall: () => true,
  },
}).createMachine({
  id: "upload",
  initial: "idle",
  states: {
    /** Nothing chosen yet. */
    idle: { on: { "file.chosen": [{ guard: "isSmall", target: "sending" }, { target: "rejected" }] } },
    sending: {
      invoke: { src: "send", onDone: "done", onError: "idle" },
      on: {
        // Cancelling drops the request.
        "upload.cancelled": "idle",
      },
    },
    rejected: { description: "The file was too large.", on: { "upload.reset": "idle" } },
    done: { type: "final" },
  },
})
`

const uploadMachine = setup({
  actors: { send: fromPromise(async () => undefined) },
  guards: { isSmall: () => true },
}).createMachine({
  id: "upload",
  initial: "idle",
  states: {
    idle: { on: { "file.chosen": [{ guard: "isSmall", target: "sending" }, { target: "rejected" }] } },
    sending: {
      invoke: { src: "send", onDone: "done", onError: "idle" },
      on: { "upload.cancelled": "idle" },
    },
    rejected: { description: "The file was too large.", on: { "upload.reset": "idle" } },
    done: { type: "final" },
  },
})

const upload = siteMachineOf(describeMachine("uploadMachine", uploadMachine), "src/machines/upload.machine.ts", SOURCE)

describe("statechart site generator", () => {
  it("reads doc comments by key path and the header's event bullets", () => {
    const docs = docCommentsOf(SOURCE, SOURCE.indexOf("{", SOURCE.indexOf(".createMachine(")))
    expect(docs.get("states/idle")).toBe("Nothing chosen yet.")
    expect(docs.get("states/sending/on/upload.cancelled")).toBe("Cancelling drops the request.")
    const setupDocs = docCommentsOf(SOURCE, SOURCE.indexOf("{", SOURCE.indexOf("setup(")))
    expect(setupDocs.get("actors/send")).toBe("Sends the file to the server.")
    expect(setupDocs.get("guards/isSmall")).toBe("The file is small enough.")
    const events = eventBulletsOf(upload.header)
    expect(events.get("file.chosen")).toBe("the user picked a file to send.")
    expect(events.get("upload.reset")).toBe("stop and start over.")
  })

  it("draws one box per state, the initial marker, the final state and labelled transitions", async () => {
    const svg = await renderSvg(upload)
    const boxes = [...svg.matchAll(/data-state="([^"]+)"/g)].map((m) => m[1])
    expect(boxes.sort()).toEqual(["done", "idle", "rejected", "sending"])
    expect(svg).toContain('class="initial"')
    expect(svg).toMatch(/class="state final" data-state="done"/)
    for (const label of ["file.chosen", "[isSmall]", "done(send)", "error(send)", "upload.cancelled", "upload.reset"]) {
      expect(svg).toContain(`>${label}</tspan>`)
    }
    expect(svg).not.toMatch(/NaN|undefined/)
    // Deterministic: the same machine gives the same bytes.
    expect(await renderSvg(upload)).toBe(svg)
  })

  it("explains every state and event in words, with the effects and the coverage", () => {
    const html = renderMachinePage(upload, { driven: 6, total: 6 }, { width: 100, height: 100 })
    for (const state of ["idle", "sending", "rejected", "done"]) expect(html).toContain(`id="state-${state}"`)
    expect(html).toContain("Nothing chosen yet.")
    expect(html).toContain("The file was too large.")
    expect(html).toContain("the user picked a file to send.")
    expect(html).toContain("Cancelling drops the request.")
    expect(html).toContain("invokes <code>send</code> — Sends the file to the server.")
    expect(html).toContain("The file is small enough.")
    for (const event of ["file.chosen", "upload.cancelled", "upload.reset", "done(send)", "error(send)"]) {
      expect(html).toContain(`<th scope="row"><code>${event}</code></th>`)
    }
    expect(html).toContain("6 / 6 edges driven (100 %)")
    expect(renderMachinePage(upload, undefined, { width: 1, height: 1 })).toContain("not measured")
  })

  it("writes no script, no inline style and no style attribute (the server's CSP forbids them)", async () => {
    const site = await generateSite([upload], new Map([["upload", { driven: 3, total: 4 }]]))
    expect([...site.keys()].sort()).toEqual(["index.html", "site.css", "upload.html", "upload.svg"])
    for (const [name, content] of site) {
      expect(content, name).not.toMatch(/<script|<style|\sstyle=|\son[a-z]+=|javascript:/i)
    }
    expect(site.get("index.html")).toContain('<a href="upload.html">upload</a>')
    expect(site.get("index.html")).toContain("3 / 4")
  })

  it("has a page and a diagram for every machine of src/machines, each in an area, and an index linking them", async () => {
    const output = await generate()
    const files = readdirSync(MACHINES_DIR).filter((f) => f.endsWith(".machine.ts"))
    const index = output.get("site/index.html") ?? ""
    for (const file of files) {
      const slug = file.replace(/\.machine\.ts$/, "")
      expect(output.has(`site/${slug}.html`), slug).toBe(true)
      expect(output.has(`site/${slug}.svg`), slug).toBe(true)
      expect(index, slug).toContain(`href="${slug}.html"`)
      expect(areaOf(slug), slug).not.toBe(OTHER_AREA)
    }
    expect(AREAS.flatMap((a) => a.machines).every((slug) => files.includes(`${slug}.machine.ts`))).toBe(true)
    expect(index).toMatch(/<h2 id="area-access-and-identity">Access and identity<\/h2>/)
  })

  it("documents the session machine completely: every state in the diagram and the table, every event", async () => {
    const output = await generate()
    const description = describeMachine("sessionMachine", sessionMachine)
    const svg = output.get(`site/${kebab(sessionMachine.id)}.svg`) ?? ""
    const html = output.get(`site/${kebab(sessionMachine.id)}.html`) ?? ""
    const boxes = new Set([...svg.matchAll(/data-state="([^"]+)"/g)].map((m) => m[1]))
    for (const state of description.states) {
      const path = state.path.join(".")
      expect(boxes.has(path), path).toBe(true)
      expect(html, path).toContain(`id="state-${path}"`)
    }
    expect(boxes.size).toBe(description.states.length)
    for (const row of description.transitions) expect(html, row.event).toContain(`<code>${row.event}</code>`)
    // The doc comments written on the session's states are its descriptions.
    expect(html).toContain("The user could not be loaded (network, server): the gate offers a retry.")
    expect(html).toMatch(/Model-based test coverage:<\/strong> \d+ \/ \d+ edges driven/)
  })

  it("draws the machine's own transitions (taken in any state) from an 'any state' box, and explains parallel machines", async () => {
    const editor = setup({}).createMachine({
      id: "editor",
      type: "parallel",
      on: { "app.reset": ".document.clean" },
      states: {
        document: { initial: "clean", states: { clean: { on: { typed: "dirty" } }, dirty: {} } },
        network: { initial: "online", states: { online: {} } },
      },
    })
    const site = siteMachineOf(describeMachine("editorMachine", editor), "src/machines/editor.machine.ts", "")
    const svg = await renderSvg(site)
    expect(svg).toContain('data-any-state="true"')
    expect(svg).toContain(">app.reset</tspan>")
    expect(svg).toMatch(/class="state container region" data-state="document"/)
    const html = renderMachinePage(site, undefined, { width: 1, height: 1 })
    expect(html).toContain("The machine is parallel")
    expect(html).toContain("<code>(any state)</code> → <code>document.clean</code>")
  })

  it("describes a fixture machine with nested and final states", async () => {
    const fetcher = siteMachineOf(describeMachine("fetchMachine", fetchMachine), "tests/machines/fetcher.fixture.ts", "")
    const svg = await renderSvg(fetcher)
    expect(svg).toContain('data-state="loaded.reviewing"')
    expect(svg).toMatch(/class="state container" data-state="loaded"/)
    const index = renderSiteIndex([fetcher], new Map())
    expect(index).toContain("not measured")
  })
})
