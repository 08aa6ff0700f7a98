// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from "vitest"
import { keepAnnouncementsPlain } from "../../src/views/ui/live-announcer.ts"

const tick = () => new Promise((r) => setTimeout(r, 0))

afterEach(() => {
  document.body.innerHTML = ""
})

describe("live announcer hygiene", () => {
  it("turns a pending button's role=img announcement into the words it named, so nothing stale stays", async () => {
    document.body.innerHTML = `
      <button id="b1">Save schedule<span id="p1" role="progressbar" aria-label="Pending"></span></button>
      <div data-live-announcer="true"><div role="log" aria-live="assertive"></div></div>`
    const stop = keepAnnouncementsPlain(document)
    const log = document.querySelector("[role='log']")!
    const node = document.createElement("div")
    node.setAttribute("role", "img")
    node.setAttribute("aria-labelledby", "b1 p1")
    log.appendChild(node)
    await tick()
    expect(node.getAttribute("role")).toBeNull()
    expect(node.getAttribute("aria-labelledby")).toBeNull()
    expect(node.textContent).toBe("Save schedule, Pending")
    // The button and its spinner go away: the region still names nothing that is gone.
    document.getElementById("b1")!.remove()
    expect(document.querySelectorAll("[data-live-announcer] [role='img'], [data-live-announcer] [aria-labelledby]")).toHaveLength(0)
    stop()
  })

  it("leaves labelled elements outside the announcer alone", async () => {
    document.body.innerHTML = `<span id="l">Chart</span>`
    const stop = keepAnnouncementsPlain(document)
    const svg = document.createElement("div")
    svg.setAttribute("role", "img")
    svg.setAttribute("aria-labelledby", "l")
    document.body.appendChild(svg)
    await tick()
    expect(svg.getAttribute("role")).toBe("img")
    expect(svg.getAttribute("aria-labelledby")).toBe("l")
    stop()
  })
})
