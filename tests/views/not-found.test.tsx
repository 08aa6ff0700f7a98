// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { renderApp } from "./render-app.tsx"

afterEach(cleanup)

describe("404 page", () => {
  it("shows the spec's texts and a Return Home link to /", () => {
    renderApp("/nope")
    expect(screen.getByRole("heading", { level: 1, name: "Page Not Found" })).toBeTruthy()
    expect(screen.getByText("The page you're looking for doesn't exist or has been moved.")).toBeTruthy()
    const link = screen.getByRole("link", { name: "Return Home" })
    expect(link.getAttribute("href")).toBe("/")
  })

  it("Return Home navigates to /, which sends a signed-out visitor on to /login", async () => {
    const { currentPath, location } = renderApp("/no/such/page")
    await act(async () => {
      fireEvent.click(screen.getByRole("link", { name: "Return Home" }))
    })
    // Client-side: "/" was pushed, then replaced by the redirect to /login (no page load, no extra history entry).
    expect(location.history).toEqual(["/no/such/page", "/login"])
    expect(currentPath()).toBe("/login")
    expect(await screen.findByRole("heading", { level: 1, name: "Sign in" })).toBeTruthy()
  })
})
