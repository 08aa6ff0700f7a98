// @vitest-environment happy-dom
import { cleanup, fireEvent, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { httpFailure } from "../machines/auth-fakes.ts"
import { sampleUser } from "../machines/team-fakes.ts"
import { press, renderProfile, sampleTimezones, typeInto } from "./team-render.tsx"

afterEach(cleanup)

const loaded = async () => {
  const r = renderProfile()
  await r.fakes.calls.profile.resolve(sampleUser)
  await r.fakes.calls.timezones.resolve(sampleTimezones)
  return r
}

const personal = () => within(screen.getByRole("form", { name: "Personal information" }))
const isDisabled = (name: string) => {
  const b = personal().getByRole("button", { name })
  return b.hasAttribute("disabled") || b.getAttribute("data-disabled") !== null
}

describe("Profile Settings: personal information (access §2, §4)", () => {
  it("shows the heading and the loaded profile, with the timezone as label and offset and 'Current: …'", async () => {
    await loaded()
    expect(screen.getByRole("heading", { level: 1, name: "Profile Settings" })).toBeTruthy()
    expect(screen.getByText("Manage your personal information and account settings.")).toBeTruthy()
    expect((screen.getByLabelText("First name", { selector: "input" }) as HTMLInputElement).value).toBe("Ada")
    expect((screen.getByLabelText("Email address", { selector: "input" }) as HTMLInputElement).value).toBe("ada@example.com")
    expect(screen.getByText("Current: (UTC+00:00) Europe/London")).toBeTruthy()
  })

  it("Reset and 'Save changes' are disabled until something changed; then the unsaved-changes warning shows", async () => {
    await loaded()
    expect(isDisabled("Save changes")).toBe(true)
    expect(isDisabled("Reset")).toBe(true)
    expect(screen.queryByText("You have unsaved changes.")).toBeNull()
    typeInto("Last name", "King")
    expect(isDisabled("Save changes")).toBe(false)
    expect(screen.getByText("You have unsaved changes.")).toBeTruthy()
    fireEvent.click(personal().getByRole("button", { name: "Reset" }))
    expect((screen.getByLabelText("Last name", { selector: "input" }) as HTMLInputElement).value).toBe("Lovelace")
    expect(screen.queryByText("You have unsaved changes.")).toBeNull()
  })

  it("'Confirm profile update' lists each changed field old → new; Ctrl+Enter confirms; success toasts", async () => {
    const { fakes } = await loaded()
    typeInto("Last name", "King")
    fireEvent.click(screen.getByRole("button", { name: /Timezone/ }))
    fireEvent.click(screen.getByRole("option", { name: "(UTC+05:30) Asia/Kolkata" }))
    press("Save changes")
    const dialog = screen.getByRole("dialog", { name: "Confirm profile update" })
    const items = within(within(dialog).getByRole("list", { name: "Changed fields" })).getAllByRole("listitem")
    expect(items.map((i) => i.textContent)).toEqual([
      "Last NameLovelacechanges toKing",
      "Timezone(UTC+00:00) Europe/Londonchanges to(UTC+05:30) Asia/Kolkata",
    ])
    // Even with the focus on Cancel, Ctrl+Enter confirms.
    fireEvent.keyDown(within(dialog).getByRole("button", { name: "Cancel" }), { key: "Enter", ctrlKey: true })
    expect(fakes.calls.updateProfile.calls).toEqual([
      { email: "ada@example.com", first_name: "Ada", last_name: "King", timezone: "Asia/Kolkata" },
    ])
    // Pending: the dialog cannot be cancelled.
    expect(within(dialog).getByRole("button", { name: "Cancel" }).hasAttribute("disabled")).toBe(true)
    await fakes.calls.updateProfile.resolve({ ok: true, message: "Profile updated successfully", data: { ...sampleUser, last_name: "King" } })
    expect(screen.queryByRole("dialog", { name: "Confirm profile update" })).toBeNull()
    expect(screen.getByText("Profile updated successfully")).toBeTruthy()
    expect(isDisabled("Save changes")).toBe(true)
  })

  it("a failed update toasts 'Failed to update profile. Please try again.'", async () => {
    const { fakes } = await loaded()
    typeInto("First name", "Augusta")
    press("Save changes")
    press("Update profile")
    await fakes.calls.updateProfile.reject(httpFailure("profile-update", 500))
    expect(screen.getAllByText("Failed to update profile. Please try again.").length).toBeGreaterThan(0)
  })
})

describe("Profile Settings: change password (access §2, §4, §5)", () => {
  it("each field has its own show/hide toggle; the confirmation carries the security notice; success resets fields and toggles", async () => {
    const { fakes } = await loaded()
    typeInto("Current password", "Analytical1")
    typeInto("New password", "Difference2")
    typeInto("Confirm new password", "Difference2")
    const toggles = screen.getAllByRole("button", { name: "Show password" })
    expect(toggles).toHaveLength(3)
    fireEvent.click(toggles[1]!)
    expect((screen.getByLabelText("New password", { selector: "input" }) as HTMLInputElement).type).toBe("text")
    expect((screen.getByLabelText("Current password", { selector: "input" }) as HTMLInputElement).type).toBe("password")
    press("Update password")
    const dialog = screen.getByRole("dialog", { name: "Confirm password change" })
    expect(within(dialog).getByText("Your password will be updated immediately.")).toBeTruthy()
    expect(within(dialog).getByText("You will stay signed in on this device.")).toBeTruthy()
    expect(within(dialog).getByText(/Other sessions may need to sign in again/)).toBeTruthy()
    fireEvent.click(within(dialog).getByRole("button", { name: "Change password" }))
    expect(fakes.calls.changePassword.calls).toEqual([
      { current_password: "Analytical1", new_password: "Difference2", confirm_password: "Difference2" },
    ])
    await fakes.calls.changePassword.resolve({ ok: true, message: "Password updated successfully" })
    expect(screen.getByText("Password updated successfully")).toBeTruthy()
    expect((screen.getByLabelText("New password", { selector: "input" }) as HTMLInputElement).value).toBe("")
    expect((screen.getByLabelText("New password", { selector: "input" }) as HTMLInputElement).type).toBe("password")
    expect(screen.getAllByRole("button", { name: "Show password" })).toHaveLength(3)
  })

  it("shows the §5 messages and 'Failed to update password. Please try again.'", async () => {
    const { fakes } = await loaded()
    typeInto("Current password", "Analytical1")
    typeInto("New password", "Difference2")
    typeInto("Confirm new password", "Different2")
    press("Update password")
    expect(screen.getByText("New passwords don't match")).toBeTruthy()
    typeInto("Confirm new password", "Difference2")
    press("Update password")
    // Cmd+Enter confirms too.
    fireEvent.keyDown(screen.getByRole("dialog", { name: "Confirm password change" }), { key: "Enter", metaKey: true })
    expect(fakes.calls.changePassword.calls).toHaveLength(1)
    await fakes.calls.changePassword.reject(httpFailure("password-change", 503))
    expect(screen.getAllByText("Failed to update password. Please try again.").length).toBeGreaterThan(0)
  })
})
