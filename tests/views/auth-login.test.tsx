// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { httpFailure, resendAnswer, sampleLoginResponse } from "../machines/auth-fakes.ts"
import { press, renderAuth, typeInto } from "./auth-render.tsx"

afterEach(cleanup)

const signIn = () => screen.getByRole("button", { name: "Sign in" })

describe("login screen", () => {
  it("shows the form, the forgot-password link and the sign-up link", () => {
    renderAuth("/login")
    expect(screen.getByRole("heading", { level: 1, name: "Sign in" })).toBeTruthy()
    expect(screen.getByLabelText("Email", { selector: "input" })).toBeTruthy()
    expect(screen.getByLabelText("Password", { selector: "input" }).getAttribute("type")).toBe("password")
    expect(screen.getByRole("button", { name: "Forgot your password?" })).toBeTruthy()
    expect(screen.getByRole("link", { name: "Sign up" }).getAttribute("href")).toBe("/signup")
  })

  it("shows and hides the password", () => {
    renderAuth("/login")
    const password = screen.getByLabelText("Password", { selector: "input" })
    fireEvent.click(screen.getByRole("button", { name: "Show password" }))
    expect(password.getAttribute("type")).toBe("text")
    fireEvent.click(screen.getByRole("button", { name: "Hide password" }))
    expect(password.getAttribute("type")).toBe("password")
  })

  it("shows the message passed from the previous route: errors as alerts, successes as status", () => {
    renderAuth("/login", { state: { message: "Your session has expired. Please sign in again.", error: true } })
    const alert = screen.getByRole("alert")
    expect(alert.textContent).toContain("Your session has expired. Please sign in again.")
    fireEvent.click(within(alert).getByRole("button", { name: "Dismiss message" }))
    expect(screen.queryByText("Your session has expired. Please sign in again.")).toBeNull()
    cleanup()
    renderAuth("/login", { state: { message: "Password reset successfully!", email: "ada@example.com" } })
    expect(screen.getByRole("status").textContent).toContain("Password reset successfully!")
    expect((screen.getByLabelText("Email", { selector: "input" }) as HTMLInputElement).value).toBe("ada@example.com")
  })

  it("stores an invitation token and workspace id from the query", () => {
    const { fakes } = renderAuth("/login?invitation_token=tok-9&workspace_id=4")
    expect(fakes.stored).toEqual([{ token: "tok-9", workspaceId: 4 }])
  })

  it("shows the validation messages on the fields instead of calling the server", () => {
    const { fakes } = renderAuth("/login")
    fireEvent.click(signIn())
    expect(screen.getByText("Email is required")).toBeTruthy()
    expect(screen.getByText("Password is required")).toBeTruthy()
    typeInto("Email", "ada@")
    typeInto("Password", "short")
    fireEvent.click(signIn())
    expect(screen.getByText("Please enter a valid email address")).toBeTruthy()
    expect(screen.getByText("Password must be at least 8 characters")).toBeTruthy()
    expect(fakes.calls.login).toEqual([])
  })

  it("signs in and hands the tokens to the session; the button shows progress meanwhile", async () => {
    const { fakes } = renderAuth("/login", { state: { from: "/dashboard/users" } })
    typeInto("Email", "ada@example.com")
    typeInto("Password", "Correct-horse-1")
    fireEvent.click(signIn())
    expect(fakes.calls.login).toEqual([{ email: "ada@example.com", password: "Correct-horse-1" }])
    expect(signIn().getAttribute("data-pending")).toBe("true")
    await fakes.resolve("login", sampleLoginResponse)
    expect(fakes.calls.startSession).toEqual([
      { accessToken: "access-1", refreshToken: "refresh-1", email: "ada@example.com", returnTo: "/dashboard/users" },
    ])
  })

  it("shows the server's answer to wrong credentials", async () => {
    const { fakes } = renderAuth("/login")
    typeInto("Email", "ada@example.com")
    typeInto("Password", "wrong-password")
    fireEvent.click(signIn())
    await fakes.reject("login", httpFailure("login", 401, { _tag: "InvalidCredentials", message: "Invalid email or password" }))
    expect(screen.getByRole("alert").textContent).toBe("Invalid email or password")
    expect(signIn().getAttribute("data-pending")).toBeNull()
  })

  it("unverified email: resends automatically, shows the warning box, and offers a manual resend after the cool-down", async () => {
    const { fakes, tick } = renderAuth("/login")
    typeInto("Email", "ada@example.com")
    typeInto("Password", "Correct-horse-1")
    fireEvent.click(signIn())
    await fakes.reject(
      "login",
      httpFailure("login", 401, { message: "Email not verified", data: { error_type: "email_not_verified", email: "ada@example.com" } }),
    )
    expect(screen.getByText("Please verify your email address to continue")).toBeTruthy()
    expect(fakes.calls.resendVerification).toEqual([{ email: "ada@example.com" }])
    const resend = screen.getByRole("button", { name: "Resend verification email" })
    await fakes.resolve("resendVerification", resendAnswer("ada@example.com", 30))
    const sent = "Verification email sent to ada@example.com. The link expires in 30 minutes."
    // Inline in the warning box, and as a toast.
    expect(screen.getAllByText(sent)).toHaveLength(2)
    expect(resend.getAttribute("data-disabled")).toBe("true")
    tick(60_000)
    expect(resend.getAttribute("data-disabled")).toBeNull()
    fireEvent.click(resend)
    expect(fakes.calls.resendVerification).toHaveLength(2)
  })

  it("forgot password: opens prefilled, send disabled while empty, success toast", async () => {
    const { fakes } = renderAuth("/login")
    typeInto("Email", "ada@example.com")
    press("Forgot your password?")
    // The modal's code loads on first use (it is not part of the sign-in page's first load).
    const dialog = await screen.findByRole("dialog", { name: "Reset your password" })
    const email = within(dialog).getByLabelText("Email", { selector: "input" }) as HTMLInputElement
    expect(email.value).toBe("ada@example.com")
    const send = within(dialog).getByRole("button", { name: "Send reset link" })
    fireEvent.change(email, { target: { value: "" } })
    expect(send.getAttribute("data-disabled")).toBe("true")
    fireEvent.change(email, { target: { value: "ada@example.com" } })
    expect(send.getAttribute("data-disabled")).toBeNull()
    fireEvent.click(send)
    expect(fakes.calls.forgotPassword).toEqual([{ email: "ada@example.com" }])
    await fakes.resolve("forgotPassword", { ok: true, message: "sent" })
    expect(screen.queryByRole("dialog")).toBeNull()
    expect(screen.getByText("Password reset email sent successfully")).toBeTruthy()
  })

  it("forgot password: a failure stays in the modal with 'Failed to send password reset email'", async () => {
    const { fakes } = renderAuth("/login")
    press("Forgot your password?")
    // The modal's code loads on first use (it is not part of the sign-in page's first load).
    const dialog = await screen.findByRole("dialog", { name: "Reset your password" })
    fireEvent.change(within(dialog).getByLabelText("Email", { selector: "input" }), { target: { value: "ada@example.com" } })
    fireEvent.click(within(dialog).getByRole("button", { name: "Send reset link" }))
    await fakes.reject("forgotPassword", httpFailure("forgot-password", 500))
    expect(within(screen.getByRole("dialog")).getByRole("alert").textContent).toBe("Failed to send password reset email")
    await act(async () => {
      fireEvent.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Cancel" }))
    })
    expect(screen.queryByRole("dialog")).toBeNull()
  })
})
