// @vitest-environment happy-dom
import { cleanup, fireEvent, screen } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import type { SignupResponse } from "../../src/contracts/auth.ts"
import { httpFailure, resendAnswer } from "../machines/auth-fakes.ts"
import { renderAuth, typeInto } from "./auth-render.tsx"

afterEach(cleanup)

const fillValid = () => {
  typeInto("First name", "Ada")
  typeInto("Last name", "Lovelace")
  typeInto("Email", "ada@example.com")
  typeInto("Workspace name", "Analytical Engines")
  typeInto("Password", "Engine-1843")
  typeInto("Confirm password", "Engine-1843")
}
const create = () => fireEvent.click(screen.getByRole("button", { name: "Create account" }))

describe("sign-up screen", () => {
  it("step 1: every field, with the §5 messages on submit", () => {
    const { fakes } = renderAuth("/signup")
    expect(screen.getByRole("heading", { level: 1, name: "Create your account" })).toBeTruthy()
    create()
    for (const text of [
      "First name is required",
      "Last name is required",
      "Email is required",
      "Workspace name must be at least 3 characters",
      "Password is required",
      "Please confirm your password",
    ]) {
      expect(screen.getByText(text)).toBeTruthy()
    }
    typeInto("Password", "lowercase1")
    typeInto("Confirm password", "lowercase2")
    create()
    expect(screen.getByText("Password must contain at least one uppercase letter, one lowercase letter, and one number")).toBeTruthy()
    expect(screen.getByText("Passwords don't match")).toBeTruthy()
    expect(fakes.calls.signup).toEqual([])
    expect(screen.getByRole("link", { name: "Sign in" }).getAttribute("href")).toBe("/login")
  })

  it("sends the form with the browser's timezone; verification_pending goes to /verification-pending", async () => {
    const { fakes, currentPath } = renderAuth("/signup")
    fillValid()
    create()
    expect(fakes.calls.signup).toHaveLength(1)
    expect(fakes.calls.signup[0]).toMatchObject({
      first_name: "Ada",
      last_name: "Lovelace",
      email: "ada@example.com",
      password: "Engine-1843",
      workspace_name: "Analytical Engines",
    })
    expect(typeof fakes.calls.signup[0]?.timezone).toBe("string")
    await fakes.resolve("signup", {
      ok: true,
      status_code: 201,
      message: "Account created",
      data: { note: "verification_pending" },
    })
    expect(currentPath()).toBe("/verification-pending")
  })

  it("step 2 'Verification email sent' with a resend button and a way to sign in", async () => {
    const { fakes, currentPath } = renderAuth("/signup")
    fillValid()
    create()
    await fakes.resolve("signup", { ok: true, status_code: 201, message: "Account created", data: {} } as unknown as SignupResponse)
    expect(screen.getByRole("heading", { level: 1, name: "Verification email sent" })).toBeTruthy()
    expect(screen.getByText("ada@example.com")).toBeTruthy()
    fireEvent.click(screen.getByRole("button", { name: "Resend verification email" }))
    expect(fakes.calls.resendVerification).toEqual([{ email: "ada@example.com" }])
    await fakes.resolve("resendVerification", resendAnswer("ada@example.com", 30))
    fireEvent.click(screen.getByRole("button", { name: "Go to sign in" }))
    expect(currentPath()).toBe("/login")
  })

  it("shows the §8 texts for the failures that keep the user on the form", async () => {
    const { fakes } = renderAuth("/signup")
    fillValid()
    create()
    await fakes.reject(
      "signup",
      httpFailure("signup", 409, { message: "Workspace already exists. Please choose a different workspace name.", data: { error_type: "workspace_exists" } }),
    )
    expect(screen.getByRole("alert").textContent).toBe("Workspace already exists. Please choose a different workspace name.")
    create()
    await fakes.reject("signup", httpFailure("signup", 429))
    expect(screen.getByRole("alert").textContent).toBe("Too many signup attempts. Please try again later.")
    create()
    await fakes.reject("signup", httpFailure("signup", 503))
    expect(screen.getByRole("alert").textContent).toBe("Server is temporarily unavailable. Please try again later.")
  })

  it("409 for an existing account sends the user to sign in with the hint", async () => {
    const { fakes, currentPath } = renderAuth("/signup")
    fillValid()
    create()
    await fakes.reject("signup", httpFailure("signup", 409, { message: "Email already registered" }))
    expect(currentPath()).toBe("/login")
  })
})
