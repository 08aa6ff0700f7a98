// @vitest-environment happy-dom
import { cleanup, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { FEATURES, PRODUCT_NAME } from "../../src/views/layouts/auth-layout.tsx"
import { renderApp } from "./render-app.tsx"

afterEach(cleanup)

describe("auth layout", () => {
  it("shows the marketing panel with the product name and the four feature cards on /login", () => {
    renderApp("/login")
    const panel = screen.getByRole("complementary", { name: `About ${PRODUCT_NAME}` })
    expect(within(panel).getByText(PRODUCT_NAME)).toBeTruthy()
    const cards = within(within(panel).getByRole("list", { name: "Features" })).getAllByRole("listitem")
    expect(cards.map((card) => within(card).getByRole("heading").textContent)).toEqual([
      "Comprehensive Scans",
      "Vulnerability Detection",
      "Compliance Checks",
      "Detailed Reporting",
    ])
    for (const card of cards) expect(card.querySelector("p")?.textContent?.length ?? 0).toBeGreaterThan(20)
    // The product's promise (access §1): it scans, detects and remediates vulnerabilities across AWS, GCP and Azure.
    expect(panel.textContent).toMatch(/scan/i)
    expect(panel.textContent).toMatch(/remediate/i)
    for (const cloud of ["AWS", "GCP", "Azure"]) expect(panel.textContent).toContain(cloud)
  })

  it("puts the form in the main region next to the panel", () => {
    renderApp("/login")
    const main = screen.getByRole("main")
    expect(within(main).getByRole("heading", { level: 1, name: "Sign in" })).toBeTruthy()
    expect(within(main).getByRole("link", { name: "Sign up" }).getAttribute("href")).toBe("/signup")
  })

  it("has one short description per feature", () => {
    expect(FEATURES).toHaveLength(4)
    for (const feature of FEATURES) expect(feature.description).not.toContain("\n")
  })
})
