/**
 * Pieces several machines share where their flows really are the same, so that each machine file reads as its own flow.
 *
 * - `rolesRegion`: a form dialog's parallel region that loads the workspace's roles (for the role picker), with a retry
 *   after a failure. The machine provides the actor `loadRoles` and the actions `assignRoles: assign(rolesLoaded)` and
 *   `assignRolesError: assign(rolesFailed)`; its context has `roles` and `rolesError`. Used by add member, edit member
 *   and invite members.
 *
 * - `submitIfValid`: `form.submitted` of a form that checks itself first: valid → the save state (error cleared),
 *   otherwise the field errors show.
 * - `failedBackToEditing`: a dialog's save that failed goes back to `editing` with the error in the form and in a toast.
 * - `invitationCheck`: the start of a token-gated invitation page: no token → `invalid`; otherwise the token is checked
 *   (`checkInvitation`) → `ready`, already accepted → `alreadyAccepted`, or the page's own failure branches; a check that
 *   could not run waits in `unavailable` for a retry. Used by the invitation accept and invitation sign-up pages.
 *
 * - `confirmBeforeSaving`: a form saved only after a confirmation dialog: with input (the machine's "dirty" guard) that
 *   passes `isFormValid`, `form.submitted` asks for confirmation, otherwise shows the field errors; `form.reset` clears
 *   the input; `confirming` goes on to `saving` or back to `editing`. Used by Profile Settings and change password.
 *
 * - `SecretForm` / `SecretFormEvent`: the context and events of a form with secret fields that can be shown (sign-up from
 *   an invitation, reset password, change password).
 * - `invitationSessionHandOff`: the session start after an invitation answered with tokens.
 *
 * - `exportRegion`: a findings export (CSV or JSON) running beside the page: `export.requested` (guard `canExport`) →
 *   `exporting` → the file is saved, or an error toast; used by the scan page and the findings list.
 *
 * A fragment is plain statechart config: the generated statechart docs and the model-based tests see each machine whole.
 */
import { fromPromise } from "xstate"
import type { AcceptInvitationResponse, InvitationCheckResponse } from "../contracts/invitations.ts"
import type { FieldErrors } from "../contracts/validation.ts"
import type { RoleWithPermissions } from "../contracts/workspaces.ts"
import { errorOf, outputOf } from "./actor-output.ts"
import { ScanningMessages } from "../contracts/messages.ts"
import { AuthPaths, toFailure } from "./auth-effects.ts"
import type { ExportedFile } from "./scan-effects.ts"
import type { SessionHandOff } from "./screen-environment.ts"

/** The default of an effect actor the React boundary must provide: fails loudly when it was not. */
export const notProvided = (name: string) => async (): Promise<never> => {
  throw new Error(`${name} is not provided`)
}

/** The roles region's actor (`loadRoles`), to be provided with the workspace's roles call. */
export const loadRolesActor = fromPromise<ReadonlyArray<RoleWithPermissions>, void>(notProvided("loadRoles"))

/** What a dialog with the roles region keeps about the roles: the list for the picker, or why it could not load. */
export interface RolesPicker {
  readonly roles: ReadonlyArray<RoleWithPermissions>
  readonly rolesError: string | undefined
}

/** The events of a member dialog (add, edit): typing, picking a role, submitting, closing, retrying the roles. */
export type MemberDialogEvent<Field extends string> =
  | { readonly type: "field.changed"; readonly field: Field; readonly value: string }
  | { readonly type: "role.selected"; readonly roleId: number | null }
  | { readonly type: "form.submitted" }
  | { readonly type: "dialog.closed" }
  | { readonly type: "roles.retryRequested" }

export const rolesRegion = {
  initial: "loading",
  states: {
    loading: {
      description: "The workspace's roles for the role picker are being loaded.",
      invoke: {
        id: "loadRoles",
        src: "loadRoles",
        onDone: { target: "ready", actions: "assignRoles" },
        onError: { target: "failed", actions: "assignRolesError" },
      },
    },
    ready: { description: "The role picker offers the workspace's roles." },
    failed: {
      description: "The roles could not be loaded: the role picker shows the error and offers to try again.",
      on: { "roles.retryRequested": { target: "loading" } },
    },
  },
} as const

/** `assignRoles`: the loaded roles, and no error. */
export const rolesLoaded = ({ event }: { readonly event: unknown }) => ({
  roles: outputOf<ReadonlyArray<RoleWithPermissions> | undefined>(event) ?? [],
  rolesError: undefined,
})

/** `assignRolesError`: the failure's text for the role picker. */
export const rolesFailed = ({ event }: { readonly event: unknown }) => ({ rolesError: toFailure(errorOf(event)).message })

/**
 * The token check of an invitation page. `missingToken` is the action naming the problem when there is no token;
 * `failures` are the page's branches after "already accepted" (expired, unreachable, invalid…). The machine provides the
 * guards `hasToken` and `isAlreadyAccepted`, the actor `checkInvitation`, and the actions `assignInvitation`,
 * `assignAlreadyAccepted` and `clearError`; its context has the trimmed `token`.
 */
export const invitationCheck = <const Missing extends string, const Failures extends ReadonlyArray<object>>(
  missingToken: Missing,
  failures: Failures,
) =>
  ({
    checking: {
      description: "The link is read: without a token there is nothing to check.",
      always: [{ guard: "hasToken", target: "verifying" }, { target: "invalid", actions: missingToken }],
    },
    verifying: {
      description: "The invitation token is being checked with the server.",
      invoke: {
        id: "checkInvitation",
        src: "checkInvitation",
        input: ({ context }: { readonly context: { readonly token: string } }) => ({ token: context.token }),
        onDone: { target: "ready", actions: "assignInvitation" },
        onError: [{ guard: "isAlreadyAccepted", target: "alreadyAccepted", actions: "assignAlreadyAccepted" }, ...failures],
      },
    },
    unavailable: {
      description: "The check could not run (network, 429, 5xx): Retry.",
      on: { "invitation.retried": { target: "verifying", actions: "clearError" } },
    },
  }) as const

/**
 * The submit half of a form saved after a confirmation (see the module's header): `editingOn` goes into the machine's
 * `editing` state's `on`, `confirming` is a sibling state of `editing` and `saving`. `submittable` is the machine's
 * `and([dirty, "isFormValid"])`; the machine provides both guards and the actions `resetForm`, `clearError` and
 * `showFieldErrors`.
 */
export const confirmBeforeSaving = <const Dirty extends string, const Submittable>(dirty: Dirty, submittable: Submittable) =>
  ({
    editingOn: {
      "form.reset": { guard: dirty, actions: "resetForm" },
      "form.submitted": [
        { guard: submittable, target: "confirming", actions: "clearError" },
        { guard: dirty, actions: "showFieldErrors" },
      ],
    },
    confirming: {
      description: "The confirmation dialog is open: confirm saves, cancel goes back to the form as it was.",
      on: {
        "confirm.accepted": { target: "saving" },
        "confirm.cancelled": { target: "editing" },
      },
    },
  }) as const

/**
 * The `onError` of a dialog's save: back to `editing`, the failure's text in the form (`assignError`) and in an error
 * toast (`notify`), with `fallback` when the failure carries no text of its own.
 */
export const failedBackToEditing = (fallback: string) => ({
  target: "editing" as const,
  actions: [
    "assignError" as const,
    {
      type: "notify" as const,
      params: ({ event }: { readonly event: unknown }) => ({
        kind: "error" as const,
        message: toFailure(errorOf(event), fallback).message,
      }),
    },
  ],
})

/** A form's values, which of its secret fields are shown, and the first problem of each field. */
export interface SecretForm<Field extends string, Secret extends Field = Field> {
  readonly values: Readonly<Record<Field, string>>
  readonly visible: Readonly<Record<Secret, boolean>>
  readonly fieldErrors: FieldErrors
}

/** Typing in a field, showing or hiding a secret one, submitting. */
export type SecretFormEvent<Field extends string, Secret extends Field = Field> =
  | { readonly type: "field.changed"; readonly field: Field; readonly value: string }
  | { readonly type: "visibility.toggled"; readonly field: Secret }
  | { readonly type: "form.submitted" }

/**
 * The `startSession` input after an invitation was accepted or completed with tokens: the tokens, the account's email
 * (the answer's, else the invitation's) and the dashboard as the place to land.
 */
export const invitationSessionHandOff = ({
  context,
  event,
}: {
  readonly context: { readonly invitation: InvitationCheckResponse | null }
  readonly event: unknown
}): SessionHandOff => {
  const out = outputOf<AcceptInvitationResponse>(event)
  const email = out.data.email ?? context.invitation?.email
  return {
    accessToken: out.access_token ?? "",
    refreshToken: out.refresh_token ?? "",
    ...(email === undefined ? {} : { email }),
    returnTo: AuthPaths.dashboard,
  }
}

/**
 * A findings export beside the page. `input` builds the export request from the machine's context. The machine provides
 * the guard `canExport`, the actor `exportFindings`, and the actions `assignExportFormat`, `clearExportFormat`,
 * `saveFile` (the browser download) and `notify`.
 */
export const exportRegion = <const Input extends (args: { readonly context: never }) => unknown>(input: Input) => ({
  initial: "idle" as const,
  states: {
    idle: {
      description: "No export is running: the export menu is available.",
      on: { "export.requested": { guard: "canExport" as const, target: "exporting" as const, actions: "assignExportFormat" as const } },
    },
    exporting: {
      description: "The findings are being exported; the file is saved as a download when it arrives, a failure toasts.",
      invoke: {
        id: "exportFindings",
        src: "exportFindings" as const,
        input,
        onDone: {
          target: "idle" as const,
          actions: [
            "clearExportFormat" as const,
            { type: "saveFile" as const, params: ({ event }: { readonly event: unknown }) => outputOf<ExportedFile>(event) },
          ],
        },
        onError: {
          target: "idle" as const,
          actions: [
            "clearExportFormat" as const,
            {
              type: "notify" as const,
              params: ({ event }: { readonly event: unknown }) => ({
                kind: "error" as const,
                message: toFailure(errorOf(event), ScanningMessages.exportFailed).message,
              }),
            },
          ],
        },
      },
    },
  },
})

/**
 * `form.submitted` of a form that checks itself before saving: with `isFormValid` it goes to `saving` (the last error
 * cleared), otherwise the field errors show (`showFieldErrors`).
 */
export const submitIfValid = <const Saving extends string>(saving: Saving) => [
  { guard: "isFormValid" as const, target: saving, actions: "clearError" as const },
  { actions: "showFieldErrors" as const },
]
