// @vitest-environment happy-dom
/**
 * Journey model of the User Management screen (STACK.md §9, technique 2): user-visible states and user/server events,
 * no invoke or after, so `createTestModel` accepts it. Every simple path is replayed on the rendered screen with fake
 * effects; each state's assertion checks what the user sees (table rows, dialogs, toasts).
 */
import { cleanup, fireEvent, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { createMachine } from "xstate"
import { createTestModel } from "xstate/graph"
import { httpFailure } from "../machines/auth-fakes.ts"
import { ownerInfo, sampleInvitations, sampleMembers, sampleRoles } from "../machines/team-fakes.ts"
import { renderUserManagement, typeInto } from "./team-render.tsx"

afterEach(cleanup)

const journey = createMachine({
  id: "userManagementJourney",
  types: {} as {
    events:
      | { type: "server.loadsTeam" }
      | { type: "server.failsTeam" }
      | { type: "user.retries" }
      | { type: "user.opensDelete" }
      | { type: "user.cancelsDelete" }
      | { type: "user.confirmsDelete" }
      | { type: "server.refusesDelete" }
      | { type: "server.acceptsDelete" }
      | { type: "user.opensInvite" }
      | { type: "user.sendsEmptyInvite" }
      | { type: "user.sendsInvite" }
      | { type: "user.cancelsInvite" }
      | { type: "server.sendsInvitations" }
      | { type: "server.skipsAllInvitations" }
  },
  initial: "loading",
  states: {
    loading: { on: { "server.loadsTeam": "table", "server.failsTeam": "loadFailed" } },
    loadFailed: { on: { "user.retries": "retrying" } },
    retrying: { on: { "server.loadsTeam": "table" } },
    table: { on: { "user.opensDelete": "confirmingDelete", "user.opensInvite": "inviting" } },
    confirmingDelete: { on: { "user.cancelsDelete": "table", "user.confirmsDelete": "rowHidden" } },
    rowHidden: { on: { "server.refusesDelete": "rowRestored", "server.acceptsDelete": "rowGone" } },
    rowRestored: {},
    rowGone: {},
    inviting: {
      on: { "user.sendsEmptyInvite": "inviteErrors", "user.sendsInvite": "sendingInvite", "user.cancelsInvite": "table" },
    },
    inviteErrors: { on: { "user.sendsInvite": "sendingInvite" } },
    sendingInvite: { on: { "server.sendsInvitations": "invited", "server.skipsAllInvitations": "inviteKept" } },
    inviteKept: { on: { "user.cancelsInvite": "table" } },
    invited: {},
  },
})

const teamTable = () => screen.getByRole("table", { name: "Team members" })
const inviteDialog = () => screen.queryByRole("dialog", { name: "Invite team members" })

describe("user management journey model", () => {
  const model = createTestModel(journey)
  const paths = model.getSimplePaths()

  it("visits every state of the journey on some path", () => {
    const reached = new Set(paths.flatMap((p) => [p.state, ...p.steps.map((s) => s.state)].map((s) => JSON.stringify(s.value))))
    for (const state of Object.keys(journey.states)) expect(reached.has(JSON.stringify(state))).toBe(true)
    console.info(`user management journey: ${paths.length} simple paths over ${Object.keys(journey.states).length} states`)
  })

  for (const path of paths) {
    it(`drives the rendered screen: ${path.description}`, async () => {
      const { fakes } = renderUserManagement()
      await fakes.loadInvitations(sampleInvitations)
      await fakes.calls.workspaceInfo.resolve(ownerInfo)
      const openInvite = async () => {
        fireEvent.click(screen.getByRole("button", { name: "Invite team members" }))
        await fakes.calls.roles.resolve(sampleRoles)
      }
      const fillInvite = () => {
        const dialog = inviteDialog()!
        typeInto("Email address", "margaret@example.com")
        fireEvent.click(within(dialog).getByRole("button", { name: /Role/ }))
        fireEvent.click(screen.getByRole("option", { name: "Auditor" }))
      }
      await path.test({
        events: {
          "server.loadsTeam": () => fakes.loadMembers(sampleMembers),
          "server.failsTeam": () => fakes.failMembers(httpFailure("team-load-members", 500)),
          "user.retries": () => void fireEvent.click(screen.getByRole("button", { name: "Try again" })),
          "user.opensDelete": () => {
            fireEvent.click(screen.getByRole("button", { name: "Actions for Alan Turing" }))
            fireEvent.click(screen.getByRole("menuitem", { name: "Delete" }))
          },
          "user.cancelsDelete": () =>
            void fireEvent.click(within(screen.getByRole("alertdialog")).getByRole("button", { name: "Cancel" })),
          "user.confirmsDelete": () =>
            void fireEvent.click(within(screen.getByRole("alertdialog")).getByRole("button", { name: "Delete" })),
          "server.refusesDelete": () => fakes.calls.deleteMember.reject(httpFailure("team-delete-member", 500)),
          "server.acceptsDelete": () => fakes.calls.deleteMember.resolve({ ok: true, message: "Team member deleted successfully" }),
          "user.opensInvite": openInvite,
          "user.sendsEmptyInvite": () =>
            void fireEvent.click(within(inviteDialog()!).getByRole("button", { name: "Send invitations" })),
          "user.sendsInvite": () => {
            fillInvite()
            fireEvent.click(within(inviteDialog()!).getByRole("button", { name: "Send invitations" }))
          },
          "user.cancelsInvite": () => void fireEvent.click(within(inviteDialog()!).getByRole("button", { name: "Cancel" })),
          "server.sendsInvitations": () =>
            fakes.calls.inviteMembers.resolve({ sent_count: 1, resent_count: 0, skipped_count: 0, skipped_emails: [] }),
          "server.skipsAllInvitations": () =>
            fakes.calls.inviteMembers.resolve({
              sent_count: 0,
              resent_count: 0,
              skipped_count: 1,
              skipped_emails: [{ email: "margaret@example.com", reason: "already invited" }],
            }),
        },
        states: {
          loading: () => expect(teamTable().querySelectorAll("tr[data-skeleton]")).toHaveLength(5),
          loadFailed: () => {
            expect(screen.getAllByText("Failed to load team members").length).toBeGreaterThan(0)
            expect(screen.getByRole("button", { name: "Try again" })).toBeTruthy()
          },
          retrying: () => expect(fakes.refetches.members).toBe(1),
          table: () => {
            expect(within(teamTable()).getByText("Alan Turing")).toBeTruthy()
            expect(screen.queryByRole("dialog")).toBeNull()
            expect(screen.queryByRole("alertdialog")).toBeNull()
          },
          confirmingDelete: () => {
            const dialog = screen.getByRole("alertdialog", { name: "Confirm deletion" })
            expect(within(dialog).getByText("alan@example.com")).toBeTruthy()
          },
          rowHidden: () => {
            expect(screen.queryByRole("alertdialog")).toBeNull()
            expect(within(teamTable()).queryByText("Alan Turing")).toBeNull()
          },
          rowRestored: () => {
            expect(within(teamTable()).getByText("Alan Turing")).toBeTruthy()
            expect(screen.getByText("Failed to delete team member")).toBeTruthy()
          },
          rowGone: () => {
            expect(within(teamTable()).queryByText("Alan Turing")).toBeNull()
            expect(screen.getByText("Team member deleted successfully")).toBeTruthy()
          },
          inviting: () => {
            expect(inviteDialog()).not.toBeNull()
            expect(within(inviteDialog()!).getAllByRole("group")).toHaveLength(1)
          },
          inviteErrors: () => {
            expect(within(inviteDialog()!).getByText("Email is required")).toBeTruthy()
            expect(within(inviteDialog()!).getByText("Please select a role")).toBeTruthy()
          },
          sendingInvite: () =>
            expect(fakes.calls.inviteMembers.calls.at(-1)).toEqual({
              invitations: [{ email: "margaret@example.com", role_id: 3, is_custom_role: false }],
            }),
          inviteKept: () => {
            expect(inviteDialog()).not.toBeNull()
            expect(screen.getByText("All 1 invitations failed to send")).toBeTruthy()
          },
          invited: () => {
            expect(inviteDialog()).toBeNull()
            expect(screen.getByText("All 1 invitation(s) sent successfully")).toBeTruthy()
          },
        },
      })
    })
  }
})
