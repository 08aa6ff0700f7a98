// @vitest-environment happy-dom
/**
 * Journey model of Profile Settings (STACK.md §9, technique 2): the personal-information form through its confirmation
 * dialog, and the password change. User-visible states, user/server events, replayed on the rendered screen with fake
 * effects for every simple path.
 */
import { cleanup, fireEvent, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { createMachine } from "xstate"
import { createTestModel } from "xstate/graph"
import { httpFailure } from "../machines/auth-fakes.ts"
import { sampleUser } from "../machines/team-fakes.ts"
import { renderProfile, sampleTimezones, typeInto } from "./team-render.tsx"

afterEach(cleanup)

const journey = createMachine({
  id: "profileJourney",
  types: {} as {
    events:
      | { type: "server.loadsProfile" }
      | { type: "user.editsName" }
      | { type: "user.resets" }
      | { type: "user.saves" }
      | { type: "user.cancelsDialog" }
      | { type: "user.confirmsWithShortcut" }
      | { type: "server.savesProfile" }
      | { type: "server.failsProfile" }
      | { type: "user.typesPasswords" }
      | { type: "user.submitsPasswords" }
      | { type: "user.confirmsPassword" }
      | { type: "server.changesPassword" }
  },
  initial: "loading",
  states: {
    loading: { on: { "server.loadsProfile": "pristine" } },
    pristine: { on: { "user.editsName": "dirty", "user.typesPasswords": "passwordTyped" } },
    dirty: { on: { "user.resets": "pristine", "user.saves": "confirming" } },
    confirming: { on: { "user.cancelsDialog": "dirty", "user.confirmsWithShortcut": "saving" } },
    saving: { on: { "server.savesProfile": "saved", "server.failsProfile": "saveFailed" } },
    saveFailed: { on: { "user.saves": "confirming" } },
    saved: {},
    passwordTyped: { on: { "user.submitsPasswords": "confirmingPassword" } },
    confirmingPassword: { on: { "user.cancelsDialog": "passwordTyped", "user.confirmsPassword": "changingPassword" } },
    changingPassword: { on: { "server.changesPassword": "passwordChanged" } },
    passwordChanged: {},
  },
})

const personal = () => within(screen.getByRole("form", { name: "Personal information" }))
const disabled = (el: HTMLElement) => el.hasAttribute("disabled") || el.getAttribute("data-disabled") !== null
const value = (label: string) => (screen.getByLabelText(label, { selector: "input" }) as HTMLInputElement).value

describe("profile journey model", () => {
  const model = createTestModel(journey)
  const paths = model.getSimplePaths()

  it("visits every state of the journey on some path", () => {
    const reached = new Set(paths.flatMap((p) => [p.state, ...p.steps.map((s) => s.state)].map((s) => JSON.stringify(s.value))))
    for (const state of Object.keys(journey.states)) expect(reached.has(JSON.stringify(state))).toBe(true)
    console.info(`profile journey: ${paths.length} simple paths over ${Object.keys(journey.states).length} states`)
  })

  for (const path of paths) {
    it(`drives the rendered screen: ${path.description}`, async () => {
      const { fakes } = renderProfile()
      const dialog = () => screen.getByRole("dialog")
      await path.test({
        events: {
          "server.loadsProfile": async () => {
            await fakes.calls.profile.resolve(sampleUser)
            await fakes.calls.timezones.resolve(sampleTimezones)
          },
          "user.editsName": () => void typeInto("Last name", "King"),
          "user.resets": () => void fireEvent.click(personal().getByRole("button", { name: "Reset" })),
          "user.saves": () => void fireEvent.click(personal().getByRole("button", { name: "Save changes" })),
          "user.cancelsDialog": () => void fireEvent.click(within(dialog()).getByRole("button", { name: "Cancel" })),
          "user.confirmsWithShortcut": () => void fireEvent.keyDown(dialog(), { key: "Enter", ctrlKey: true }),
          "server.savesProfile": () =>
            fakes.calls.updateProfile.resolve({ ok: true, message: "Profile updated successfully", data: { ...sampleUser, last_name: "King" } }),
          "server.failsProfile": () => fakes.calls.updateProfile.reject(httpFailure("profile-update", 500)),
          "user.typesPasswords": () => {
            typeInto("Current password", "Analytical1")
            typeInto(/^New password/, "Difference2")
            typeInto("Confirm new password", "Difference2")
          },
          "user.submitsPasswords": () => void fireEvent.click(screen.getByRole("button", { name: "Update password" })),
          "user.confirmsPassword": () => void fireEvent.click(within(dialog()).getByRole("button", { name: "Change password" })),
          "server.changesPassword": () => fakes.calls.changePassword.resolve({ ok: true, message: "Password updated successfully" }),
        },
        states: {
          loading: () => expect(screen.getByText("Loading your profile…")).toBeTruthy(),
          pristine: () => {
            expect(value("Last name")).toBe("Lovelace")
            expect(disabled(personal().getByRole("button", { name: "Save changes" }))).toBe(true)
            expect(screen.queryByText("You have unsaved changes.")).toBeNull()
          },
          dirty: () => {
            expect(value("Last name")).toBe("King")
            expect(disabled(personal().getByRole("button", { name: "Save changes" }))).toBe(false)
            expect(screen.getByText("You have unsaved changes.")).toBeTruthy()
            expect(screen.queryByRole("dialog")).toBeNull()
          },
          confirming: () => {
            const d = screen.getByRole("dialog", { name: "Confirm profile update" })
            expect(within(d).getByText("Last Name")).toBeTruthy()
            expect(within(d).getByText("King")).toBeTruthy()
          },
          saving: () => {
            expect(fakes.calls.updateProfile.calls.at(-1)).toEqual({
              email: "ada@example.com",
              first_name: "Ada",
              last_name: "King",
              timezone: "Europe/London",
            })
            expect(disabled(within(screen.getByRole("dialog")).getByRole("button", { name: "Cancel" }))).toBe(true)
          },
          saveFailed: () => {
            expect(screen.queryByRole("dialog")).toBeNull()
            expect(screen.getAllByText("Failed to update profile. Please try again.").length).toBeGreaterThan(0)
            expect(value("Last name")).toBe("King")
          },
          saved: () => {
            expect(screen.queryByRole("dialog")).toBeNull()
            expect(screen.getByText("Profile updated successfully")).toBeTruthy()
            expect(disabled(personal().getByRole("button", { name: "Save changes" }))).toBe(true)
          },
          passwordTyped: () => {
            expect(value("Current password")).toBe("Analytical1")
            expect(screen.queryByRole("dialog")).toBeNull()
          },
          confirmingPassword: () =>
            expect(within(screen.getByRole("dialog", { name: "Confirm password change" })).getByText("Security notice")).toBeTruthy(),
          changingPassword: () => expect(fakes.calls.changePassword.calls).toHaveLength(1),
          passwordChanged: () => {
            expect(screen.getByText("Password updated successfully")).toBeTruthy()
            expect(value("Current password")).toBe("")
          },
        },
      })
    })
  }
})
