// @vitest-environment happy-dom
import { cleanup, fireEvent, screen } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { httpFailure, networkFailure } from "../machines/auth-fakes.ts"
import { renderAuth, typeInto } from "./auth-render.tsx"

afterEach(cleanup)

const submit = () => fireEvent.click(screen.getByRole("button", { name: "Reset password" }))

describe("reset-password screen", () => {
  it("without a token: 'Invalid or expired reset link' at once", () => {
    const { fakes } = renderAuth("/reset-password")
    expect(screen.getByRole("heading", { level: 2, name: "Invalid or expired reset link" })).toBeTruthy()
    expect(fakes.calls.validateResetToken).toEqual([])
    expect(screen.getByRole("link", { name: "Back to sign in" }).getAttribute("href")).toBe("/login")
  })

  it("validating, then invalid", async () => {
    const { fakes } = renderAuth("/reset-password?token=tok-1")
    expect(screen.getByRole("heading", { level: 2, name: "Checking your reset link..." })).toBeTruthy()
    expect(fakes.calls.validateResetToken).toEqual([{ token: "tok-1" }])
    await fakes.reject("validateResetToken", httpFailure("reset-password", 400, { _tag: "InvalidToken", message: "Invalid token" }))
    expect(screen.getByRole("heading", { level: 2, name: "Invalid or expired reset link" })).toBeTruthy()
  })

  it("a check that could not run offers Try again", async () => {
    const { fakes } = renderAuth("/reset-password?token=tok-1")
    await fakes.reject("validateResetToken", networkFailure("reset-password"))
    expect(screen.getByText("Unable to connect to the server. Please check your internet connection.")).toBeTruthy()
    fireEvent.click(screen.getByRole("button", { name: "Try again" }))
    expect(fakes.calls.validateResetToken).toHaveLength(2)
  })

  it("valid: the form with the §5 rules and show/hide toggles, then 'Password reset successfully!' and sign in", async () => {
    const { fakes, currentPath } = renderAuth("/reset-password?token=tok-1")
    await fakes.resolve("validateResetToken", { ok: true, data: { email: "ada@example.com" } })
    expect(screen.getByRole("heading", { level: 1, name: "Reset password" })).toBeTruthy()
    expect(screen.getByText("ada@example.com")).toBeTruthy()
    submit()
    expect(screen.getByText("Password is required")).toBeTruthy()
    expect(screen.getByText("Please confirm your password")).toBeTruthy()
    typeInto("New password", "Engine-1843")
    typeInto("Confirm new password", "Engine-1844")
    submit()
    expect(screen.getByText("Passwords don't match")).toBeTruthy()
    const toggles = screen.getAllByRole("button", { name: "Show password" })
    expect(toggles).toHaveLength(2)
    fireEvent.click(toggles[0]!)
    expect(screen.getByLabelText("New password", { selector: "input" }).getAttribute("type")).toBe("text")
    expect(screen.getByLabelText("Confirm new password", { selector: "input" }).getAttribute("type")).toBe("password")
    typeInto("Confirm new password", "Engine-1843")
    submit()
    expect(fakes.calls.resetPassword).toEqual([{ token: "tok-1", new_password: "Engine-1843", confirm_password: "Engine-1843" }])
    await fakes.resolve("resetPassword", { ok: true, message: "Password reset" })
    expect(screen.getByRole("heading", { level: 2, name: "Password reset successfully!" })).toBeTruthy()
    fireEvent.click(screen.getByRole("button", { name: "Sign in" }))
    expect(currentPath()).toBe("/login")
  })

  it("a refused password stays on the form with the server's text", async () => {
    const { fakes } = renderAuth("/reset-password?token=tok-1")
    await fakes.resolve("validateResetToken", { ok: true, data: { email: "ada@example.com" } })
    typeInto("New password", "Engine-1843")
    typeInto("Confirm new password", "Engine-1843")
    submit()
    await fakes.reject("resetPassword", httpFailure("reset-password", 500))
    expect(screen.getByRole("alert").textContent).toBe("Failed to reset password")
  })
})
