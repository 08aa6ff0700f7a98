/**
 * The personal-information form of Profile Settings (access §2 "Profile Settings", §4 "Profile and password changes
 * need a two-step confirmation … Cancelling a dialog while a request is pending is blocked", §5 "Profile", §7
 * `PUT /api/update-user-info`, `GET /api/timezones`, §8 'Profile updated successfully' / 'Failed to update profile.
 * Please try again.').
 *
 * Parallel regions:
 * - `timezones`: loading | ready | failed (`loadTimezones`, cached 1 hour; `timezones.retryRequested`).
 * - `profile`: loading (`loadProfile`) | failed (`profile.retryRequested`) | editing | confirming | saving.
 *
 * Events accepted:
 * - `field.changed` { field, value } — the user edited First Name, Last Name, Email or Timezone; that field's error clears.
 * - `form.reset` — the user pressed Reset (only while something changed): the form goes back to the saved profile.
 * - `form.submitted` — the user pressed 'Save changes': valid changes open the confirmation, otherwise the field errors show.
 * - `confirm.accepted` — the user pressed 'Update profile' (or Ctrl/Cmd+Enter) in the confirmation dialog: the update is sent.
 * - `confirm.cancelled` — the user cancelled the confirmation dialog: back to the form with the changes kept.
 * - `timezones.retryRequested` — the user asked to load the timezone list again after it failed.
 * - `profile.retryRequested` — the user asked to load the profile again after it failed.
 *
 * Reset and Save are enabled only while something changed (`hasChanges`: names and email compared trimmed);
 * the view shows the unsaved-changes warning from the same guard. Saving validates (`validateProfile`) and opens the
 * 'Confirm profile update' dialog listing each changed field (First Name, Last Name, Email, Timezone) old → new.
 * While the update runs the dialog cannot be dismissed. Success toasts, takes the server's user as the new baseline
 * and keeps any notice the server adds (a new email waits for verification); failure toasts the §8 text.
 */
import { and, assertEvent, assign, fromPromise, setup } from "xstate"
import type { Timezone, User } from "../contracts/auth.ts"
import { SuccessMessages, TeamFailureMessages } from "../contracts/messages.ts"
import {
  changedProfileFields,
  type ProfileField,
  type UpdateProfilePayload,
  type UpdateProfileResponse,
  validateProfile,
} from "../contracts/profile.ts"
import type { FieldErrors } from "../contracts/validation.ts"
import { toFailure, type NotifyParams } from "./auth-effects.ts"
import { confirmBeforeSaving } from "./building-blocks.ts"
import { errorOf } from "./actor-output.ts"

export interface ProfileValues {
  readonly first_name: string
  readonly last_name: string
  readonly email: string
  /** IANA name; "" when none is set. */
  readonly timezone: string
}

export interface ProfileContext {
  /** What the server holds (the baseline for Reset and for the change list). */
  readonly original: ProfileValues
  readonly values: ProfileValues
  readonly timezones: ReadonlyArray<Timezone>
  readonly timezonesError: string | undefined
  readonly fieldErrors: FieldErrors
  readonly error: string | undefined
  readonly loadError: string | undefined
  /** A note the server added to a successful update (e.g. the new email awaits verification). */
  readonly notice: string | undefined
}

export type ProfileEvent =
  | { readonly type: "field.changed"; readonly field: ProfileField; readonly value: string }
  | { readonly type: "form.reset" }
  | { readonly type: "form.submitted" }
  | { readonly type: "confirm.accepted" }
  | { readonly type: "confirm.cancelled" }
  | { readonly type: "profile.retryRequested" }
  | { readonly type: "timezones.retryRequested" }

export const emptyProfileValues: ProfileValues = { first_name: "", last_name: "", email: "", timezone: "" }

export const profileValuesOf = (user: User): ProfileValues => ({
  first_name: user.first_name,
  last_name: user.last_name,
  email: user.email,
  timezone: user.timezone?.value ?? "",
})

/** Names and email as they would be sent (surrounding spaces are not a change). */
export const normalizedProfile = (v: ProfileValues): ProfileValues => ({
  first_name: v.first_name.trim(),
  last_name: v.last_name.trim(),
  email: v.email.trim(),
  timezone: v.timezone,
})

/** Access §2: the changed fields with old and new values, in display order. */
export const profileChanges = (context: Pick<ProfileContext, "original" | "values">) =>
  changedProfileFields(context.original, normalizedProfile(context.values))

/** The payload: timezone only when one is chosen (optional but non-empty when given). */
export const profilePayloadOf = (v: ProfileValues): UpdateProfilePayload => {
  const n = normalizedProfile(v)
  return {
    email: n.email,
    first_name: n.first_name,
    last_name: n.last_name,
    ...(n.timezone === "" ? {} : { timezone: n.timezone }),
  }
}

const submit = confirmBeforeSaving("hasChanges", and(["hasChanges", "isFormValid"]))

export const profileMachine = setup({
  types: {
    context: {} as ProfileContext,
    events: {} as ProfileEvent,
  },
  actors: {
    /** Loads the signed-in user's profile. */
    loadProfile: fromPromise<User, void>(async () => {
      throw new Error("loadProfile is not provided")
    }),
    /** Loads the timezone list (GET /api/timezones, cached 1 hour). */
    loadTimezones: fromPromise<ReadonlyArray<Timezone>, void>(async () => {
      throw new Error("loadTimezones is not provided")
    }),
    /** Sends the changed profile (PUT /api/update-user-info). */
    updateProfile: fromPromise<UpdateProfileResponse, UpdateProfilePayload>(async () => {
      throw new Error("updateProfile is not provided")
    }),
  },
  guards: {
    /** Something differs from the saved profile (names and email compared trimmed). */
    hasChanges: ({ context }) => profileChanges(context).length > 0,
    /** The values pass `validateProfile`. */
    isFormValid: ({ context }) => Object.keys(validateProfile(profilePayloadOf(context.values))).length === 0,
  },
  actions: {
    /** Environment: a toast (supplied at the React boundary). */
    notify: (_, _params: NotifyParams) => {},
    assignProfile: assign(({ event }) => {
      const values = profileValuesOf((event as unknown as { output: User }).output)
      return { original: values, values, loadError: undefined, fieldErrors: {} }
    }),
    assignLoadError: assign({ loadError: ({ event }) => toFailure(errorOf(event)).message }),
    assignField: assign(({ context, event }) => {
      assertEvent(event, "field.changed")
      const { [event.field]: _cleared, ...fieldErrors } = context.fieldErrors
      return { values: { ...context.values, [event.field]: event.value }, fieldErrors, notice: undefined }
    }),
    resetForm: assign(({ context }) => ({ values: context.original, fieldErrors: {}, error: undefined })),
    showFieldErrors: assign({ fieldErrors: ({ context }) => validateProfile(profilePayloadOf(context.values)) }),
    clearError: assign({ error: undefined }),
    assignSaved: assign(({ context, event }) => {
      const response = (event as unknown as { output: UpdateProfileResponse }).output
      const saved = response.data === undefined ? normalizedProfile(context.values) : profileValuesOf(response.data)
      return {
        original: saved,
        values: saved,
        error: undefined,
        notice: response.message !== SuccessMessages.profileUpdated && response.message.trim() !== "" ? response.message : undefined,
      }
    }),
    assignError: assign({ error: ({ event }) => toFailure(errorOf(event), TeamFailureMessages.updateProfile).message }),
    assignTimezones: assign({
      timezones: ({ event }) => (event as { output?: ReadonlyArray<Timezone> }).output ?? [],
      timezonesError: undefined,
    }),
    assignTimezonesError: assign({ timezonesError: ({ event }) => toFailure(errorOf(event)).message }),
  },
}).createMachine({
  id: "profile",
  context: {
    original: emptyProfileValues,
    values: emptyProfileValues,
    timezones: [],
    timezonesError: undefined,
    fieldErrors: {},
    error: undefined,
    loadError: undefined,
    notice: undefined,
  },
  type: "parallel",
  states: {
    timezones: {
      description: "The timezone list for the Timezone picker.",
      initial: "loading",
      states: {
        loading: {
          description: "The timezone list is being loaded (cached for an hour).",
          invoke: {
            id: "loadTimezones",
            src: "loadTimezones",
            /** The timezones arrived: the Timezone picker offers them. */
            onDone: { target: "ready", actions: "assignTimezones" },
            /** The timezones could not be loaded: the picker shows the error with 'Try loading timezones again'. */
            onError: { target: "failed", actions: "assignTimezonesError" },
          },
        },
        ready: { description: "The Timezone picker offers the loaded timezones." },
        failed: {
          description: "The timezones could not be loaded: the Timezone field shows the error and a 'Try loading timezones again' button.",
          on: { "timezones.retryRequested": { target: "loading" } },
        },
      },
    },
    profile: {
      description: "The personal-information form: loading the profile, editing it, confirming and saving changes.",
      initial: "loading",
      states: {
        loading: {
          description: "The user's profile is being loaded: 'Loading your profile…'.",
          invoke: {
            id: "loadProfile",
            src: "loadProfile",
            /** The profile arrived: it fills the form and becomes the baseline for changes. */
            onDone: { target: "editing", actions: "assignProfile" },
            /** The profile could not be loaded: its error is shown with 'Try again'. */
            onError: { target: "failed", actions: "assignLoadError" },
          },
        },
        failed: {
          description: "The profile could not be loaded: its error is shown with 'Try again'.",
          on: { "profile.retryRequested": { target: "loading" } },
        },
        editing: {
          description: "The form shows the profile for editing; Reset and 'Save changes' work only while something changed, with an unsaved-changes warning.",
          on: {
            "field.changed": { actions: "assignField" },
            ...submit.editingOn,
          },
        },
        confirming: submit.confirming,
        saving: {
          description: "The profile update is being sent; the confirmation dialog cannot be dismissed meanwhile.",
          invoke: {
            id: "updateProfile",
            src: "updateProfile",
            input: ({ context }) => profilePayloadOf(context.values),
            /** Saved: 'Profile updated successfully' toasts, the server's user becomes the new baseline and any notice it adds (a new email waiting for verification) is shown. */
            onDone: {
              target: "editing",
              actions: ["assignSaved", { type: "notify", params: { kind: "success", message: SuccessMessages.profileUpdated } }],
            },
            /** The update failed: the error is shown in the form and toasted ('Failed to update profile. Please try again.' when it has no text of its own). */
            onError: {
              target: "editing",
              actions: [
                "assignError",
                {
                  type: "notify",
                  params: ({ event }) => ({ kind: "error", message: toFailure(errorOf(event), TeamFailureMessages.updateProfile).message }),
                },
              ],
            },
          },
        },
      },
    },
  },
})
