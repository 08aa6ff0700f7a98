import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock, type SnapshotFrom } from "xstate"
import type { Timezone, User } from "../../src/contracts/auth.ts"
import type { UpdateProfilePayload, UpdateProfileResponse } from "../../src/contracts/profile.ts"
import { profileChanges, profileMachine } from "../../src/machines/profile.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never } from "./auth-fakes.ts"
import { sampleUser, toastRecorder } from "./team-fakes.ts"

const timezones: ReadonlyArray<Timezone> = [
  { value: "Europe/London", label: "London", offset: "+00:00" },
  { value: "Asia/Kolkata", label: "Kolkata", offset: "+05:30" },
]

const start = () => {
  const user = controlled<void, User>()
  const zones = controlled<void, ReadonlyArray<Timezone>>()
  const update = controlled<UpdateProfilePayload, UpdateProfileResponse>()
  const { toasts, notify } = toastRecorder()
  const actor = createActor(
    profileMachine.provide({
      actors: { loadProfile: user.logic, loadTimezones: zones.logic, updateProfile: update.logic },
      actions: { notify },
    }),
    { clock: new SimulatedClock() },
  ).start()
  return { actor, user, zones, update, toasts }
}

const loaded = async () => {
  const s = start()
  await s.user.resolve(sampleUser)
  await s.zones.resolve(timezones)
  return s
}

describe("profile machine: transition coverage", () => {
  it("drives every (state, event) edge", async () => {
    const provided = profileMachine.provide({ actors: { loadProfile: never(), loadTimezones: never(), updateProfile: never() } })
    // Keyed by value and whether the form differs from the baseline, so `confirming` is reachable.
    const serializeState = (s: SnapshotFrom<typeof provided>) => JSON.stringify([s.value, profileChanges(s.context).length > 0])
    const coverage = await coverTransitions(provided, {
      serializeState,
      createActor: (clock) => createActor(provided, { clock }),
      events: [
        { type: "field.changed", field: "first_name", value: "Augusta" },
        { type: "form.reset" },
        { type: "form.submitted" },
        { type: "confirm.accepted" },
        { type: "confirm.cancelled" },
        { type: "profile.retryRequested" },
        { type: "timezones.retryRequested" },
        { type: "xstate.done.actor.loadProfile", output: sampleUser },
        { type: "xstate.error.actor.loadProfile", error: httpFailure("generic", 500) },
        { type: "xstate.done.actor.loadTimezones", output: timezones },
        { type: "xstate.error.actor.loadTimezones", error: httpFailure("generic", 500) },
        { type: "xstate.done.actor.updateProfile", output: { ok: true, message: "Profile updated successfully", data: sampleUser } },
        { type: "xstate.error.actor.updateProfile", error: httpFailure("profile-update", 500) },
      ],
    })
    console.info(formatCoverage("profile", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })
})

describe("profile machine: behaviour (access §2, §4, §5)", () => {
  it("loads the user and the timezones; Reset and Save are disabled until something changed", async () => {
    const { actor } = await loaded()
    try {
      expect(actor.getSnapshot().context.values).toEqual({
        first_name: "Ada",
        last_name: "Lovelace",
        email: "ada@example.com",
        timezone: "Europe/London",
      })
      expect(actor.getSnapshot().can({ type: "form.submitted" })).toBe(false)
      expect(actor.getSnapshot().can({ type: "form.reset" })).toBe(false)
      actor.send({ type: "field.changed", field: "first_name", value: "Ada " })
      // Surrounding spaces are not a change.
      expect(actor.getSnapshot().can({ type: "form.submitted" })).toBe(false)
      actor.send({ type: "field.changed", field: "first_name", value: "Augusta" })
      expect(actor.getSnapshot().can({ type: "form.submitted" })).toBe(true)
      actor.send({ type: "form.reset" })
      expect(actor.getSnapshot().context.values.first_name).toBe("Ada")
      expect(actor.getSnapshot().can({ type: "form.reset" })).toBe(false)
    } finally {
      actor.stop()
    }
  })

  it("Save opens the confirmation listing every changed field old → new", async () => {
    const { actor } = await loaded()
    try {
      actor.send({ type: "field.changed", field: "last_name", value: "King" })
      actor.send({ type: "field.changed", field: "timezone", value: "Asia/Kolkata" })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().matches({ profile: "confirming" })).toBe(true)
      expect(profileChanges(actor.getSnapshot().context)).toEqual([
        { field: "last_name", label: "Last Name", from: "Lovelace", to: "King" },
        { field: "timezone", label: "Timezone", from: "Europe/London", to: "Asia/Kolkata" },
      ])
      actor.send({ type: "confirm.cancelled" })
      expect(actor.getSnapshot().matches({ profile: "editing" })).toBe(true)
      expect(actor.getSnapshot().context.values.last_name).toBe("King")
    } finally {
      actor.stop()
    }
  })

  it("invalid values stay in the form with the §5 messages", async () => {
    const { actor } = await loaded()
    try {
      actor.send({ type: "field.changed", field: "email", value: "ada@" })
      actor.send({ type: "field.changed", field: "first_name", value: "x".repeat(51) })
      actor.send({ type: "form.submitted" })
      expect(actor.getSnapshot().matches({ profile: "editing" })).toBe(true)
      expect(actor.getSnapshot().context.fieldErrors).toEqual({
        email: "Please enter a valid email address",
        first_name: "First name must be less than 50 characters",
      })
    } finally {
      actor.stop()
    }
  })

  it("'Update profile' saves; the dialog cannot be cancelled while pending; success toasts and becomes the baseline", async () => {
    const { actor, update, toasts } = await loaded()
    try {
      actor.send({ type: "field.changed", field: "last_name", value: " King " })
      actor.send({ type: "form.submitted" })
      actor.send({ type: "confirm.accepted" })
      expect(update.calls).toEqual([{ email: "ada@example.com", first_name: "Ada", last_name: "King", timezone: "Europe/London" }])
      expect(actor.getSnapshot().can({ type: "confirm.cancelled" })).toBe(false)
      actor.send({ type: "confirm.cancelled" })
      expect(actor.getSnapshot().matches({ profile: "saving" })).toBe(true)
      await update.resolve({ ok: true, message: "Profile updated successfully", data: { ...sampleUser, last_name: "King" } })
      expect(actor.getSnapshot().matches({ profile: "editing" })).toBe(true)
      expect(toasts).toEqual([{ kind: "success", message: "Profile updated successfully" }])
      expect(actor.getSnapshot().context.original.last_name).toBe("King")
      expect(actor.getSnapshot().can({ type: "form.submitted" })).toBe(false)
      expect(actor.getSnapshot().context.notice).toBeUndefined()
    } finally {
      actor.stop()
    }
  })

  it("a new email awaiting verification: the form shows the server's note and the current email", async () => {
    const { actor, update } = await loaded()
    try {
      actor.send({ type: "field.changed", field: "email", value: "countess@example.com" })
      actor.send({ type: "form.submitted" })
      actor.send({ type: "confirm.accepted" })
      const note = "Profile updated successfully. Please verify your new email address; until then, sign in with your current email."
      await update.resolve({ ok: true, message: note, data: sampleUser })
      expect(actor.getSnapshot().context.notice).toBe(note)
      expect(actor.getSnapshot().context.values.email).toBe("ada@example.com")
    } finally {
      actor.stop()
    }
  })

  it("a failure toasts 'Failed to update profile. Please try again.' and keeps the edits", async () => {
    const { actor, update, toasts } = await loaded()
    try {
      actor.send({ type: "field.changed", field: "first_name", value: "Augusta" })
      actor.send({ type: "form.submitted" })
      actor.send({ type: "confirm.accepted" })
      await update.reject(httpFailure("profile-update", 500))
      expect(toasts).toEqual([{ kind: "error", message: "Failed to update profile. Please try again." }])
      expect(actor.getSnapshot().context.error).toBe("Failed to update profile. Please try again.")
      expect(actor.getSnapshot().context.values.first_name).toBe("Augusta")
    } finally {
      actor.stop()
    }
  })

  it("a load failure offers a retry", async () => {
    const { actor, user } = start()
    try {
      await user.reject(httpFailure("generic", 500))
      expect(actor.getSnapshot().matches({ profile: "failed" })).toBe(true)
      actor.send({ type: "profile.retryRequested" })
      await user.resolve(sampleUser)
      expect(actor.getSnapshot().matches({ profile: "editing" })).toBe(true)
    } finally {
      actor.stop()
    }
  })
})
