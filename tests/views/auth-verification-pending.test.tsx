// @vitest-environment happy-dom
import { cleanup, fireEvent, screen } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { httpFailure, resendAnswer } from "../machines/auth-fakes.ts"
import { renderAuth, typeInto } from "./auth-render.tsx"

afterEach(cleanup)

const resend = () => screen.getByRole("button", { name: "Resend verification email" })

describe("verification-pending screen", () => {
  it("an email form with the note that links are valid 30 minutes", () => {
    renderAuth("/verification-pending", { state: { email: "ada@example.com" } })
    expect(screen.getByRole("heading", { level: 1, name: "Verify your email" })).toBeTruthy()
    expect(screen.getByText("Verification links are valid for 30 minutes.")).toBeTruthy()
    expect((screen.getByLabelText("Email", { selector: "input" }) as HTMLInputElement).value).toBe("ada@example.com")
  })

  it("validates the address, then resends; the button waits out the cool-down", async () => {
    const { fakes, tick } = renderAuth("/verification-pending")
    fireEvent.click(resend())
    expect(screen.getByText("Email is required")).toBeTruthy()
    typeInto("Email", "ada@example.com")
    fireEvent.click(resend())
    expect(fakes.calls.resendVerification).toEqual([{ email: "ada@example.com" }])
    await fakes.resolve("resendVerification", resendAnswer("ada@example.com", 30))
    expect(screen.getAllByText("Verification email sent to ada@example.com. The link expires in 30 minutes.").length).toBe(2)
    expect(resend().getAttribute("data-disabled")).toBe("true")
    tick(60_000)
    expect(resend().getAttribute("data-disabled")).toBeNull()
  })

  it("429 → 'Please wait N minute(s)…' from retry_after_seconds", async () => {
    const { fakes, tick } = renderAuth("/verification-pending", { state: { email: "ada@example.com" } })
    fireEvent.click(resend())
    await fakes.reject("resendVerification", httpFailure("resend", 429, { retry_after_seconds: 180 }))
    expect(screen.getByText("Please wait 3 minute(s) before requesting another verification email")).toBeTruthy()
    expect(resend().getAttribute("data-disabled")).toBe("true")
    tick(180_000)
    expect(resend().getAttribute("data-disabled")).toBeNull()
  })

  it("an already verified address says so", async () => {
    const { fakes } = renderAuth("/verification-pending", { state: { email: "ada@example.com" } })
    fireEvent.click(resend())
    await fakes.reject("resendVerification", httpFailure("resend", 409, { message: "Email already verified" }))
    expect(screen.getByText("Email is already verified! You can sign in now.")).toBeTruthy()
    expect(screen.getByRole("link", { name: "Sign in" }).getAttribute("href")).toBe("/login")
  })
})
