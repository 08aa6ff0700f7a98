// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import type { WorkspaceId } from "../../src/contracts/ids.ts"
import type { InvitationCheckResponse } from "../../src/contracts/invitations.ts"
import { httpFailure, networkFailure } from "../machines/auth-fakes.ts"
import { renderAccess } from "./access-render.tsx"

afterEach(cleanup)

const TOKEN = "tok-abcdef-0123456789"
const check = (extra: Partial<InvitationCheckResponse> = {}): InvitationCheckResponse => ({
  ok: true,
  email: "grace@example.com",
  workspace_name: "Acme Security",
  role_name: "Auditor",
  status: "pending",
  ...extra,
})
/** A field by its label (required fields carry a decorative "*"). */
const field = (label: string) => screen.getByLabelText(new RegExp(`^${label}\\*?$`), { selector: "input" })
const typeInto = (label: string, value: string) => fireEvent.change(field(label), { target: { value } })

describe("invitation page", () => {
  it.each([[`/invitation/accept/${TOKEN}`], [`/invitation/accept?token=${TOKEN}`]])(
    "%s shows the workspace, the invited email and the role with 'Accept and Continue' when signed out",
    async (url) => {
      const { invitation } = renderAccess(url, { status: "unauthenticated" })
      expect(screen.getByRole("heading", { level: 2, name: "Checking your invitation..." })).toBeTruthy()
      expect(invitation.check.calls).toEqual([{ token: TOKEN }])
      await invitation.check.resolve(check())
      const details = screen.getByRole("region", { name: "Invitation" })
      expect(within(details).getAllByText("Acme Security").length).toBeGreaterThan(0)
      expect(within(details).getByText("grace@example.com")).toBeTruthy()
      expect(within(details).getByText("Auditor")).toBeTruthy()
      expect(screen.getByRole("button", { name: "Accept and Continue" })).toBeTruthy()
    },
  )

  it("says 'Accept Invitation' when signed in; accepting toasts and goes to the dashboard", async () => {
    const { invitation, currentPath } = renderAccess(`/invitation/accept/${TOKEN}`, { status: "authenticated" })
    await invitation.check.resolve(check({ user_exists: true }))
    fireEvent.click(screen.getByRole("button", { name: "Accept Invitation" }))
    expect(invitation.accept.calls).toHaveLength(1)
    expect(invitation.accept.calls[0]).toMatchObject({ invitation_token: TOKEN })
    await invitation.accept.resolve({ ok: true, message: "ok", data: { workspace_id: 5 as WorkspaceId, workspace_name: "Acme Security" } })
    expect(screen.getByText("You've been added to Acme Security")).toBeTruthy()
    expect(currentPath()).toBe("/dashboard")
  })

  it("without a token: 'Invalid or expired invitation link'", () => {
    const { invitation } = renderAccess("/invitation/accept", { status: "unauthenticated" })
    expect(screen.getByRole("heading", { level: 2, name: "Invalid or expired invitation link" })).toBeTruthy()
    expect(invitation.check.calls).toEqual([])
    expect(screen.getByRole("link", { name: "Go to login" }).getAttribute("href")).toBe("/login")
  })

  it("a revoked invitation: 'Invalid or expired invitation link'", async () => {
    const { invitation } = renderAccess(`/invitation/accept/${TOKEN}`, { status: "unauthenticated" })
    await invitation.check.reject(httpFailure("invitation", 404, { _tag: "NotFound", message: "gone" }))
    expect(screen.getByRole("heading", { level: 2, name: "Invalid or expired invitation link" })).toBeTruthy()
  })

  it("signed out without tokens: 'Registration Complete!' then /login after 3 s", async () => {
    const { invitation, tick, currentPath } = renderAccess(`/invitation/accept/${TOKEN}`, { status: "unauthenticated" })
    await invitation.check.resolve(check())
    fireEvent.click(screen.getByRole("button", { name: "Accept and Continue" }))
    await invitation.accept.resolve({ ok: true, message: "Registration Complete!", data: { workspace_name: "Acme Security" } })
    expect(screen.getByRole("heading", { level: 2, name: "Registration Complete!" })).toBeTruthy()
    tick(2999)
    expect(currentPath()).toBe(`/invitation/accept/${TOKEN}`)
    tick(1)
    expect(currentPath()).toBe("/login")
  })

  it("an already-accepted invitation says so and goes to /login after 1.5 s", async () => {
    const { invitation, tick, currentPath } = renderAccess(`/invitation/accept/${TOKEN}`, { status: "unauthenticated" })
    await invitation.check.reject(
      httpFailure("invitation", 409, { _tag: "Conflict", message: "x", data: { error_type: "already_accepted" } }),
    )
    expect(
      screen.getByRole("heading", { level: 2, name: "This invitation has already been accepted. You can sign in now." }),
    ).toBeTruthy()
    tick(1499)
    expect(currentPath()).toBe(`/invitation/accept/${TOKEN}`)
    tick(1)
    expect(currentPath()).toBe("/login")
  })

  it("signed out, new invitee: 'Accept and Continue' opens the sign-up form", async () => {
    const { invitation, currentUrl } = renderAccess(`/invitation/accept/${TOKEN}`, { status: "unauthenticated" })
    await invitation.check.resolve(check({ user_exists: false }))
    fireEvent.click(screen.getByRole("button", { name: "Accept and Continue" }))
    expect(currentUrl()).toBe(`/invitation/signup?token=${TOKEN}`)
    expect(screen.getByRole("heading", { level: 1, name: "Complete your signup" })).toBeTruthy()
  })

  it("an unreachable check offers 'Try again'", async () => {
    const { invitation } = renderAccess(`/invitation/accept/${TOKEN}`, { status: "unauthenticated" })
    await invitation.check.reject(networkFailure("invitation"))
    fireEvent.click(screen.getByRole("button", { name: "Try again" }))
    expect(invitation.check.calls).toHaveLength(2)
  })
})

describe("invitation sign-up", () => {
  it.each([["/invitation/signup"], ["/accept-invite"]])("%s without a token: 'Invalid invitation' and 'Go to login'", (url) => {
    const { currentPath } = renderAccess(url, { status: "unauthenticated" })
    expect(screen.getByRole("heading", { level: 2, name: "Invalid invitation" })).toBeTruthy()
    expect(screen.getByText("Invalid invitation token")).toBeTruthy()
    fireEvent.click(screen.getByRole("button", { name: "Go to login" }))
    expect(currentPath()).toBe("/login")
  })

  it("a refused token is 'Invalid invitation' with the §8 text", async () => {
    const { invitation } = renderAccess(`/accept-invite?token=${TOKEN}`, { status: "unauthenticated" })
    await invitation.check.reject(httpFailure("invitation", 410, { _tag: "Gone", message: "expired" }))
    expect(screen.getByRole("heading", { level: 2, name: "Invalid invitation" })).toBeTruthy()
    expect(screen.getByText("This invitation has expired. Please request a new invitation.")).toBeTruthy()
  })

  it("the form: names, password with a live checklist, confirmation, toggles; completes and hands tokens to the session", async () => {
    const { invitation } = renderAccess(`/invitation/signup?token=${TOKEN}`, { status: "unauthenticated" })
    await invitation.check.resolve(check({ user_exists: false }))
    expect(screen.getByRole("heading", { level: 1, name: "Complete your signup" })).toBeTruthy()
    expect((screen.getByLabelText("Email", { selector: "input" }) as HTMLInputElement).value).toBe("grace@example.com")
    const checklist = screen.getByRole("list", { name: "Password requirements" })
    const met = () => within(checklist).getAllByText(/\(met\)/).length
    expect(within(checklist).getAllByText(/\(not met\)/)).toHaveLength(4)
    fireEvent.click(screen.getByRole("button", { name: "Complete signup" }))
    expect(screen.getByText("First name is required")).toBeTruthy()
    expect(screen.getByText("Password is required")).toBeTruthy()
    expect(invitation.complete.calls).toEqual([])
    typeInto("First name", "Grace")
    typeInto("Last name", "Hopper")
    typeInto("Password", "compiler")
    expect(met()).toBe(2) // length and lowercase
    typeInto("Password", "Compiler-1952")
    expect(met()).toBe(4)
    typeInto("Confirm password", "Compiler-1953")
    fireEvent.click(screen.getByRole("button", { name: "Complete signup" }))
    expect(screen.getByText("Passwords don't match")).toBeTruthy()
    const toggles = screen.getAllByRole("button", { name: "Show password" })
    expect(toggles).toHaveLength(2)
    fireEvent.click(toggles[1]!)
    expect(field("Confirm password").getAttribute("type")).toBe("text")
    expect(field("Password").getAttribute("type")).toBe("password")
    typeInto("Confirm password", "Compiler-1952")
    fireEvent.click(screen.getByRole("button", { name: "Complete signup" }))
    expect(invitation.complete.calls).toHaveLength(1)
    expect(invitation.complete.calls[0]).toMatchObject({
      invitation_token: TOKEN,
      first_name: "Grace",
      last_name: "Hopper",
      password: "Compiler-1952",
      confirm_password: "Compiler-1952",
    })
    await invitation.complete.resolve({
      ok: true,
      message: "Registration Complete!",
      access_token: "a",
      refresh_token: "r",
      data: { workspace_id: 5 as WorkspaceId, workspace_name: "Acme Security", email: "grace@example.com" },
    })
    expect(invitation.startSession.calls).toEqual([
      { accessToken: "a", refreshToken: "r", email: "grace@example.com", returnTo: "/dashboard" },
    ])
  })

  it("shows the §8 completion text when the server refuses", async () => {
    const { invitation } = renderAccess(`/invitation/signup?token=${TOKEN}`, { status: "unauthenticated" })
    await invitation.check.resolve(check())
    typeInto("First name", "Grace")
    typeInto("Last name", "Hopper")
    typeInto("Password", "Compiler-1952")
    typeInto("Confirm password", "Compiler-1952")
    fireEvent.click(screen.getByRole("button", { name: "Complete signup" }))
    await invitation.complete.reject(httpFailure("invitation-completion", 410, { message: "Invitation has expired" }))
    expect(within(screen.getByRole("alert")).getByText("This invitation has expired. Please request a new one.")).toBeTruthy()
  })

  it("offers 'Already have an account? Sign in' → /login", async () => {
    const { invitation } = renderAccess(`/invitation/signup?token=${TOKEN}`, { status: "unauthenticated" })
    await invitation.check.resolve(check())
    expect(screen.getByText(/Already have an account\?/)).toBeTruthy()
    expect(screen.getByRole("link", { name: "Sign in" }).getAttribute("href")).toBe("/login")
  })
})
