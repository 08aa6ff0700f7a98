// @vitest-environment happy-dom
import { cleanup, fireEvent, screen } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { renderAuth } from "./auth-render.tsx"

afterEach(cleanup)

describe("email-verification-success screen", () => {
  it("'Email verified successfully!' with the address and a sign-in button", () => {
    const { currentPath } = renderAuth("/email-verification-success?email=ada%40example.com")
    expect(screen.getByRole("heading", { level: 1, name: "Email verified successfully!" })).toBeTruthy()
    expect(screen.getByText("ada@example.com")).toBeTruthy()
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }))
    expect(currentPath()).toBe("/login")
  })

  it("shows 'Email is already verified!' when the verify screen said so, and nothing else from history state", () => {
    renderAuth("/email-verification-success", { state: { message: "Email is already verified!" } })
    expect(screen.getByRole("heading", { level: 1, name: "Email is already verified!" })).toBeTruthy()
    cleanup()
    renderAuth("/email-verification-success", { state: { message: "<b>anything</b>" } })
    expect(screen.getByRole("heading", { level: 1, name: "Email verified successfully!" })).toBeTruthy()
  })
})
