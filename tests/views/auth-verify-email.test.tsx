// @vitest-environment happy-dom
import { cleanup, fireEvent, screen } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { httpFailure, LONG_TOKEN, networkFailure, resendAnswer } from "../machines/auth-fakes.ts"
import { renderAuth } from "./auth-render.tsx"

afterEach(cleanup)

const link = (token: string, email: string) => `/verify-email?${new URLSearchParams({ token, email }).toString()}`

describe("verify-email screen", () => {
  it("checks the link first: a short token is invalid without calling the server", () => {
    const { fakes } = renderAuth(link("short", "ada@example.com"))
    expect(screen.getByRole("heading", { level: 1, name: "Email verification" })).toBeTruthy()
    expect(screen.getByRole("heading", { level: 2, name: "Invalid verification link" })).toBeTruthy()
    expect(screen.getByText("Invalid verification token format.")).toBeTruthy()
    expect(fakes.calls.verifyEmail).toEqual([])
    expect(screen.getByRole("button", { name: "Resend verification email" })).toBeTruthy()
  })

  it("missing parameters and a malformed address: the resend goes through /verification-pending", () => {
    renderAuth("/verify-email?token=" + LONG_TOKEN)
    expect(screen.getByText("Invalid verification link. Missing required parameters.")).toBeTruthy()
    expect(screen.getByRole("link", { name: "Request a new verification email" }).getAttribute("href")).toBe("/verification-pending")
    cleanup()
    renderAuth(link(LONG_TOKEN, "ada-at-example.com"))
    expect(screen.getByText("Invalid email format in verification link.")).toBeTruthy()
  })

  it("loading, then success → /email-verification-success", async () => {
    const { fakes, currentPath } = renderAuth(link(LONG_TOKEN, "ada@example.com"))
    expect(screen.getByRole("heading", { level: 2, name: "Verifying your email..." })).toBeTruthy()
    expect(fakes.calls.verifyEmail).toEqual([{ token: LONG_TOKEN, email: "ada@example.com" }])
    await fakes.resolve("verifyEmail", { ok: true, message: "Email verified", data: { email: "ada@example.com" } })
    expect(currentPath()).toBe("/email-verification-success")
    expect(screen.getByRole("heading", { level: 1, name: "Email verified successfully!" })).toBeTruthy()
  })

  it("already verified is a success", async () => {
    const { fakes, currentPath } = renderAuth(link(LONG_TOKEN, "ada@example.com"))
    await fakes.reject("verifyEmail", httpFailure("verification", 409, { message: "Email already verified" }))
    expect(currentPath()).toBe("/email-verification-success")
  })

  it("an expired link shows the §8 text and resends to the link's address", async () => {
    const { fakes } = renderAuth(link(LONG_TOKEN, "ada@example.com"))
    await fakes.reject("verifyEmail", httpFailure("verification", 410, {}))
    expect(screen.getByText("Verification link has expired. Please request a new one.")).toBeTruthy()
    expect(screen.queryByRole("button", { name: "Try again" })).toBeNull()
    fireEvent.click(screen.getByRole("button", { name: "Resend verification email" }))
    expect(fakes.calls.resendVerification).toEqual([{ email: "ada@example.com" }])
    await fakes.resolve("resendVerification", resendAnswer("ada@example.com", 30))
    expect(screen.getAllByText("Verification email sent to ada@example.com. The link expires in 30 minutes.").length).toBeGreaterThan(0)
  })

  it("a network failure offers a retry", async () => {
    const { fakes } = renderAuth(link(LONG_TOKEN, "ada@example.com"))
    await fakes.reject("verifyEmail", networkFailure("verification"))
    expect(screen.getByRole("heading", { level: 2, name: "Verification failed" })).toBeTruthy()
    expect(screen.getByText("Network error. Please check your connection and try again.")).toBeTruthy()
    fireEvent.click(screen.getByRole("button", { name: "Try again" }))
    expect(fakes.calls.verifyEmail).toHaveLength(2)
  })
})
