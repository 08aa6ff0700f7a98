// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { httpFailure } from "../machines/auth-fakes.ts"
import { memberInfo, ownerInfo, sampleInvitations, sampleMembers, sampleRoles } from "../machines/team-fakes.ts"
import { press, renderUserManagement, typeInto } from "./team-render.tsx"

afterEach(cleanup)

const teamTable = () => screen.getByRole("table", { name: "Team members" })
const invitationsTable = () => screen.getByRole("table", { name: "Pending invitations" })
const skeletons = (table: HTMLElement) => table.querySelectorAll("tr[data-skeleton]").length
const rowOf = (table: HTMLElement, text: string) => {
  const row = within(table).getByText(text).closest("tr")
  if (row === null) throw new Error(`no row with ${text}`)
  return row as HTMLElement
}

/** Loaded page: members, invitations and the viewer (the owner unless said otherwise). */
const loaded = async (viewer = ownerInfo) => {
  const r = renderUserManagement()
  await r.fakes.loadMembers(sampleMembers)
  await r.fakes.loadInvitations(sampleInvitations)
  await r.fakes.calls.workspaceInfo.resolve(viewer)
  return r
}

const openMenu = (name: string) => fireEvent.click(screen.getByRole("button", { name: `Actions for ${name}` }))
const menuItems = () => screen.getAllByRole("menuitem").map((i) => i.textContent)

/** Picks an option of a react-aria select found by its trigger's accessible name. */
const choose = (trigger: HTMLElement, option: string) => {
  fireEvent.click(trigger)
  fireEvent.click(screen.getByRole("option", { name: option }))
}

describe("User Management: page and loading (access §2)", () => {
  it("shows the heading, the subtitle, the invite button and skeleton rows (5 team, 3 invitations) while loading", () => {
    renderUserManagement()
    expect(screen.getByRole("heading", { level: 1, name: "User Management" })).toBeTruthy()
    expect(screen.getByText("Manage workspace members and their permissions")).toBeTruthy()
    expect(screen.getByRole("button", { name: "Invite team members" })).toBeTruthy()
    expect(skeletons(teamTable())).toBe(5)
    expect(skeletons(invitationsTable())).toBe(3)
    expect(teamTable().getAttribute("aria-busy")).toBe("true")
  })

  it("renders the team table: names or emails, owner crown, email or workspace name beneath, role badges, last login", async () => {
    await loaded()
    const table = teamTable()
    expect(within(table).getAllByRole("columnheader").map((h) => h.textContent)).toEqual(["User", "Role", "Last login", "Actions"])
    const owner = rowOf(table, "Ada Lovelace")
    expect(within(owner).getByRole("img", { name: "Owner" })).toBeTruthy()
    expect(within(owner).getByText("ada@example.com")).toBeTruthy()
    expect(within(owner).getByText("Admin")).toBeTruthy()
    expect(within(rowOf(table, "Alan Turing")).getByText("Never logged in")).toBeTruthy()
    expect(within(rowOf(table, "Grace Hopper")).getByText(/2025/)).toBeTruthy()
    // No name: the email is the name and the workspace name is beneath; no role: 'No Role'.
    const nameless = rowOf(table, "nobody@example.com")
    expect(within(nameless).getByText("Analytical Engines")).toBeTruthy()
    expect(within(nameless).getByText("No Role")).toBeTruthy()
  })

  it("an empty team shows 'No team members found'", async () => {
    const { fakes } = renderUserManagement()
    await fakes.loadMembers([])
    expect(within(teamTable()).getByText("No team members found")).toBeTruthy()
  })

  it("a load failure toasts 'Failed to load team members' and offers Try again", async () => {
    const { fakes } = renderUserManagement()
    await fakes.failMembers(httpFailure("team-load-members", 500))
    const region = screen.getByRole("region", { name: "Notifications" })
    expect(within(region).getByRole("alert").textContent).toContain("Failed to load team members")
    press("Try again")
    expect(fakes.refetches.members).toBe(1)
    expect(skeletons(teamTable())).toBe(5)
  })
})

describe("User Management: row action menu (access §2, §6)", () => {
  it("the owner sees Edit, Reset password, Change role and Delete on a member's row; only Edit and Reset password on their own", async () => {
    await loaded()
    openMenu("Grace Hopper")
    expect(menuItems()).toEqual(["Edit", "Reset password", "Change role", "Delete"])
    fireEvent.keyDown(screen.getByRole("menu"), { key: "Escape" })
    expect(screen.queryByRole("menu")).toBeNull()
    openMenu("Ada Lovelace")
    expect(menuItems()).toEqual(["Edit", "Reset password"])
  })

  it("a member who is not the owner never sees Change role, nor Delete on their own row", async () => {
    await loaded(memberInfo)
    openMenu("Grace Hopper")
    expect(menuItems()).toEqual(["Edit", "Reset password"])
    fireEvent.keyDown(screen.getByRole("menu"), { key: "Escape" })
    openMenu("Alan Turing")
    expect(menuItems()).toEqual(["Edit", "Reset password", "Delete"])
  })

  it("closes on resize and on scroll, once the listeners are attached (100 ms)", async () => {
    const { tickScreen } = await loaded()
    openMenu("Grace Hopper")
    tickScreen(100)
    act(() => void window.dispatchEvent(new Event("resize")))
    expect(screen.queryByRole("menu")).toBeNull()
    openMenu("Alan Turing")
    tickScreen(100)
    act(() => void document.dispatchEvent(new Event("scroll")))
    expect(screen.queryByRole("menu")).toBeNull()
  })

  it("Reset password sends the member's reset email and toasts", async () => {
    const { fakes } = await loaded()
    openMenu("Alan Turing")
    fireEvent.click(screen.getByRole("menuitem", { name: "Reset password" }))
    expect(fakes.calls.sendPasswordReset.calls).toEqual([{ email: "alan@example.com" }])
    await fakes.calls.sendPasswordReset.resolve({ ok: true, message: "sent" })
    expect(screen.getByText("Password reset email sent successfully")).toBeTruthy()
  })
})

describe("User Management: delete with optimistic removal (access §2, §4)", () => {
  it("confirms with the spec's texts, hides the row at once and restores it when the server refuses", async () => {
    const { fakes } = await loaded()
    openMenu("Alan Turing")
    fireEvent.click(screen.getByRole("menuitem", { name: "Delete" }))
    const dialog = screen.getByRole("alertdialog", { name: "Confirm deletion" })
    expect(within(dialog).getByText("Delete team member")).toBeTruthy()
    expect(within(dialog).getByText("alan@example.com")).toBeTruthy()
    expect(
      within(dialog).getByText(
        "Are you sure you want to delete this team member? This action cannot be undone. The user will lose access to your workspace.",
      ),
    ).toBeTruthy()
    fireEvent.click(within(dialog).getByRole("button", { name: "Delete" }))
    expect(screen.queryByRole("alertdialog")).toBeNull()
    expect(within(teamTable()).queryByText("Alan Turing")).toBeNull()
    expect(fakes.calls.deleteMember.calls).toEqual([{ user_to_delete: 3 }])
    await fakes.calls.deleteMember.reject(httpFailure("team-delete-member", 500))
    expect(within(teamTable()).getByText("Alan Turing")).toBeTruthy()
    expect(screen.getByText("Failed to delete team member")).toBeTruthy()
  })

  it("success keeps it gone and toasts 'Team member deleted successfully'", async () => {
    const { fakes } = await loaded()
    openMenu("Grace Hopper")
    fireEvent.click(screen.getByRole("menuitem", { name: "Delete" }))
    fireEvent.click(within(screen.getByRole("alertdialog")).getByRole("button", { name: "Delete" }))
    await fakes.calls.deleteMember.resolve({ ok: true, message: "Team member deleted successfully" })
    expect(within(teamTable()).queryByText("Grace Hopper")).toBeNull()
    expect(screen.getByText("Team member deleted successfully")).toBeTruthy()
  })
})

describe("User Management: add and edit dialogs (access §2, §5)", () => {
  it("adds a member: fields, password hint, default roles only, then the success toast", async () => {
    const { fakes } = await loaded()
    press("Add team member")
    const dialog = screen.getByRole("dialog", { name: "Add new team member" })
    expect(within(dialog).getByText("min. 8 characters")).toBeTruthy()
    await fakes.calls.roles.resolve(sampleRoles)
    typeInto("First name", "Katherine")
    typeInto("Last name", "Johnson")
    typeInto("Email address", "katherine@example.com")
    typeInto("Password", "orbital88")
    choose(within(dialog).getByRole("button", { name: /Role/ }), "Auditor")
    fireEvent.click(within(dialog).getByRole("button", { name: "Add member" }))
    expect(fakes.calls.createUser.calls).toEqual([
      { first_name: "Katherine", last_name: "Johnson", email: "katherine@example.com", password: "orbital88", role_id: 3, is_custom_role: false },
    ])
    await fakes.calls.createUser.resolve({ ok: true, message: "Team member added successfully", data: sampleMembers[2]! })
    expect(screen.queryByRole("dialog", { name: "Add new team member" })).toBeNull()
    expect(screen.getByText("Team member added successfully")).toBeTruthy()
  })

  it("edit shows the email read-only and the role select; the owner's row has no role select", async () => {
    const { fakes } = await loaded()
    openMenu("Alan Turing")
    fireEvent.click(screen.getByRole("menuitem", { name: "Edit" }))
    let dialog = screen.getByRole("dialog", { name: "Edit team member" })
    await fakes.calls.roles.resolve(sampleRoles)
    const email = within(dialog).getByLabelText("Email address", { selector: "input" }) as HTMLInputElement
    expect(email.value).toBe("alan@example.com")
    expect(email.readOnly).toBe(true)
    expect(within(dialog).getByRole("button", { name: /Role/ })).toBeTruthy()
    fireEvent.click(within(dialog).getByRole("button", { name: "Cancel" }))
    openMenu("Ada Lovelace")
    fireEvent.click(screen.getByRole("menuitem", { name: "Edit" }))
    dialog = screen.getByRole("dialog", { name: "Edit team member" })
    expect(within(dialog).queryByRole("button", { name: /Role/ })).toBeNull()
  })

  it("a member without a role must get one: 'Please select a valid role'", async () => {
    const { fakes } = await loaded()
    openMenu("nobody@example.com")
    fireEvent.click(screen.getByRole("menuitem", { name: "Edit" }))
    const dialog = screen.getByRole("dialog", { name: "Edit team member" })
    await fakes.calls.roles.resolve(sampleRoles)
    typeInto("First name", "No")
    typeInto("Last name", "Body")
    fireEvent.click(within(dialog).getByRole("button", { name: "Save changes" }))
    expect(within(dialog).getByText("Please select a valid role")).toBeTruthy()
    expect(fakes.calls.updateMember.calls).toEqual([])
  })
})

describe("User Management: invite modal (access §2, §5, §8)", () => {
  it("rows of email + role; remove only with more than one row; sends normalised emails and toasts the result", async () => {
    const { fakes } = await loaded()
    press("Invite team members")
    const dialog = screen.getByRole("dialog", { name: "Invite team members" })
    await fakes.calls.roles.resolve(sampleRoles)
    expect(within(dialog).queryByRole("button", { name: /Remove invitation/ })).toBeNull()
    fireEvent.click(within(dialog).getByRole("button", { name: "Add another invitation" }))
    expect(within(dialog).getAllByRole("group")).toHaveLength(2)
    fireEvent.click(within(dialog).getByRole("button", { name: "Remove invitation 2" }))
    expect(within(dialog).getAllByRole("group")).toHaveLength(1)
    fireEvent.click(within(dialog).getByRole("button", { name: "Add another invitation" }))
    typeInto("Email address", " Grace@Example.com ", 0)
    typeInto("Email address", "alan@example.com", 1)
    const roleButtons = within(dialog).getAllByRole("button", { name: /Role/ })
    choose(roleButtons[0]!, "Security Engineer")
    choose(roleButtons[1]!, "Auditor")
    fireEvent.click(within(dialog).getByRole("button", { name: "Send invitations" }))
    expect(fakes.calls.inviteMembers.calls).toEqual([
      {
        invitations: [
          { email: "grace@example.com", role_id: 2, is_custom_role: false },
          { email: "alan@example.com", role_id: 3, is_custom_role: false },
        ],
      },
    ])
    await fakes.calls.inviteMembers.resolve({
      sent_count: 1,
      resent_count: 0,
      skipped_count: 1,
      skipped_emails: [{ email: "alan@example.com", reason: "already a member" }],
    })
    expect(screen.queryByRole("dialog", { name: "Invite team members" })).toBeNull()
    expect(screen.getByText("1 invitation(s) sent successfully, 1 failed")).toBeTruthy()
    expect(screen.getByText("Skipped: alan@example.com (already a member)")).toBeTruthy()
  })

  it("duplicates are refused before anything is sent", async () => {
    const { fakes } = await loaded()
    press("Invite team members")
    const dialog = screen.getByRole("dialog", { name: "Invite team members" })
    await fakes.calls.roles.resolve(sampleRoles)
    fireEvent.click(within(dialog).getByRole("button", { name: "Add another invitation" }))
    typeInto("Email address", "grace@example.com", 0)
    typeInto("Email address", "GRACE@example.com", 1)
    const roleButtons = within(dialog).getAllByRole("button", { name: /Role/ })
    choose(roleButtons[0]!, "Auditor")
    choose(roleButtons[1]!, "Auditor")
    fireEvent.click(within(dialog).getByRole("button", { name: "Send invitations" }))
    expect(within(dialog).getAllByText("Duplicate email addresses are not allowed").length).toBeGreaterThan(0)
    expect(fakes.calls.inviteMembers.calls).toEqual([])
  })
})

describe("User Management: pending invitations card (access §2, §4)", () => {
  it("shows the total, invitees with 'Invited by', roles, dates, and the link rules", async () => {
    await loaded()
    expect(screen.getByText("Track the status of sent invitations (2 total)")).toBeTruthy()
    const table = invitationsTable()
    expect(within(table).getAllByRole("columnheader").map((h) => h.textContent)).toEqual(["Invitee", "Role", "Invited", "Actions"])
    const first = rowOf(table, "invitee11@example.com")
    expect(within(first).getByText("Invited by Ada Lovelace")).toBeTruthy()
    expect(within(first).getByText("https://app.example.com/invitation/accept/token-11")).toBeTruthy()
    expect(within(first).getByText(/^Expires /)).toBeTruthy()
    // No link but a token: origin + /invitation/signup?token=…; invited by the email when there is no name.
    const third = rowOf(table, "invitee13@example.com")
    expect(within(third).getByText("https://app.example.com/invitation/signup?token=token-13")).toBeTruthy()
    expect(within(third).getByText("Invited by ada@example.com")).toBeTruthy()
    // Accepted and expired invitations are not shown.
    expect(within(table).queryByText("invitee12@example.com")).toBeNull()
    expect(within(table).queryByText("invitee14@example.com")).toBeNull()
  })

  it("'Invited by' falls back to a dash when nobody is known", async () => {
    const { fakes } = renderUserManagement()
    await fakes.loadInvitations([
      { ...sampleInvitations[0]!, invited_by_first_name: null, invited_by_last_name: null, invited_by_email: null },
    ])
    expect(within(invitationsTable()).getByText("Invited by -")).toBeTruthy()
  })

  it("a pending invitation without link or token shows 'No invitation link available'", async () => {
    const { fakes } = renderUserManagement()
    await fakes.loadInvitations([{ ...sampleInvitations[0]!, invite_link: null, invitation_token: null }])
    expect(within(invitationsTable()).getByText("No invitation link available")).toBeTruthy()
  })

  it("empty and error states", async () => {
    const { fakes } = renderUserManagement()
    await fakes.loadInvitations([])
    expect(screen.getByText("No invitations sent yet")).toBeTruthy()
    expect(screen.getByText("Invitations you send will appear here")).toBeTruthy()
    cleanup()
    const again = renderUserManagement()
    await again.fakes.failInvitations(httpFailure("team-load-invitations", 500))
    expect(screen.getByText("Failed to load invitations")).toBeTruthy()
    press("Try again")
    expect(again.fakes.refetches.invitations).toBe(1)
  })

  it("resend and cancel (with the confirmation sentence)", async () => {
    const { fakes } = await loaded()
    openMenu("the invitation to invitee11@example.com")
    expect(menuItems()).toEqual(["Resend invitation", "Cancel invitation"])
    fireEvent.click(screen.getByRole("menuitem", { name: "Resend invitation" }))
    expect(fakes.calls.resendInvitation.calls).toEqual([{ invitation_id: 11 }])
    await fakes.calls.resendInvitation.resolve({ ok: true, message: "Invitation resent to invitee11@example.com" })
    expect(screen.getByText("Invitation resent to invitee11@example.com")).toBeTruthy()
    openMenu("the invitation to invitee13@example.com")
    fireEvent.click(screen.getByRole("menuitem", { name: "Cancel invitation" }))
    const dialog = screen.getByRole("alertdialog", { name: "Cancel invitation" })
    expect(
      within(dialog).getByText("Are you sure you want to cancel the invitation to invitee13@example.com? This action cannot be undone."),
    ).toBeTruthy()
    fireEvent.click(within(dialog).getByRole("button", { name: "Cancel invitation" }))
    expect(fakes.calls.cancelInvitation.calls).toEqual([{ id: 13 }])
    await fakes.calls.cancelInvitation.resolve({ ok: true, message: "Invitation canceled for invitee13@example.com" })
    expect(screen.queryByRole("alertdialog")).toBeNull()
    expect(screen.getByText("Invitation canceled for invitee13@example.com")).toBeTruthy()
  })
})
