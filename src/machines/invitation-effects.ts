/**
 * What the two invitation screens (invitation page, invitation sign-up) need from the outside world, as types, and the
 * failure readings both share (access §8 "Invitation").
 *
 * Calls (each rejects with a catalogue failure `{ type, message, status?, data? }`):
 * - `checkInvitation`: GET /api/invitation/verify/{token} → email, workspace_name, role_name (+ `user_exists`);
 * - `acceptInvitation`: POST /api/invitations/accept { invitation_token, timezone } (signed in, or signed out);
 * - `completeInvitation`: the same call with the completion payload (invitation sign-up);
 * - `startSession`: hands returned tokens to the session (it stores them and navigates);
 * - `updateWorkspaceStore` + `now`: accepting marks the workspace as new (access §4).
 * main.tsx builds the real object from the services (`invitationEffectsFromServices` below); tests build fakes.
 */
import { errorTypeField, serverMessage } from "../contracts/error-mapping.ts"
import type {
  AcceptInvitationPayload,
  AcceptInvitationResponse,
  InvitationCheckResponse,
  InvitationCompletionPayload,
} from "../contracts/invitations.ts"
import { InvitationMessages } from "../contracts/messages.ts"
import type { AppServices } from "../services/app-services.ts"
import { toFailure, type EffectCall, type EffectFailure } from "./auth-effects.ts"
import type { SessionHandOff, WorkspaceStoreTransition } from "./screen-environment.ts"

export interface InvitationEffects {
  readonly checkInvitation: EffectCall<{ readonly token: string }, InvitationCheckResponse>
  readonly acceptInvitation: EffectCall<AcceptInvitationPayload, AcceptInvitationResponse>
  readonly completeInvitation: EffectCall<InvitationCompletionPayload, AcceptInvitationResponse>
  readonly startSession: EffectCall<SessionHandOff, void>
  readonly updateWorkspaceStore: (transition: WorkspaceStoreTransition) => void
  readonly now: () => number
}

export const InvitationPaths = {
  signup: (token: string) => `/invitation/signup?token=${encodeURIComponent(token)}`,
  /** /login with the invitation kept for after sign-in (the login screen stores it in session storage). */
  loginWithInvitation: (token: string) => `/login?invitation_token=${encodeURIComponent(token)}`,
} as const

/** The server's `error_type` of a failed call (`data.error_type` of the error body). */
export const failureErrorType = (error: unknown): string | undefined => errorTypeField(toFailure(error).data)

/** The invitation was already used (409 `already_accepted`, or the §8 text on a 409). */
export const isAlreadyAcceptedFailure = (error: unknown): boolean => {
  const failure = toFailure(error)
  const type = errorTypeField(failure.data)
  if (type !== undefined) return type === "already_accepted"
  return failure.status === 409 && failure.message === InvitationMessages.screenAlreadyAccepted
}

/** 410, or the catalogue's TOKEN_EXPIRED. */
export const isExpiredFailure = (error: unknown): boolean => {
  const failure = toFailure(error)
  return failure.type === "TOKEN_EXPIRED" || failure.status === 410
}

/** The link could not be checked at all (no answer, rate limit, server trouble): worth a retry, not "invalid". */
export const isUnreachableFailure = (error: unknown): boolean => {
  const failure: EffectFailure = toFailure(error)
  if (failure.type === "NETWORK_ERROR") return true
  const status = failure.status
  return status === undefined ? failure.type !== "INVALID_TOKEN" : status === 429 || status >= 500
}

/** The invitee already has an account: they must sign in to accept (409 `account_exists`). */
export const isAccountExistsFailure = (error: unknown): boolean => failureErrorType(error) === "account_exists"

/** The server's own explanation of a refusal (e.g. why sign-in is needed), else the catalogue message. */
export const serverReason = (error: unknown): string => {
  const failure = toFailure(error)
  return serverMessage(failure.data) ?? failure.message
}

/**
 * The text to show for a failed accept by a signed-in user: the §8 completion text for 'already a member', the server's
 * own explanation for other refusals (e.g. an invitation sent to another address), else the catalogue message.
 */
export const acceptFailureMessage = (error: unknown): string => {
  const failure = toFailure(error, InvitationMessages.pageInvalid)
  const type = errorTypeField(failure.data)
  if (type === "already_member") return InvitationMessages.completionAlreadyMember
  if (failure.status === 409 && type !== "already_accepted") return serverMessage(failure.data) ?? failure.message
  return failure.message
}

// ---------------------------------------------------------------------------------------------------
// The real effects, from the SPA services (built once in main.tsx)

export interface InvitationSessionHooks {
  /** Hands tokens to the session (`session.signedIn`); resolves once the session has them. */
  readonly startSession: (handOff: SessionHandOff) => Promise<void>
}

export const invitationEffectsFromServices = (
  services: Pick<AppServices, "api" | "cache" | "workspaceStore" | "clock">,
  hooks: InvitationSessionHooks,
): InvitationEffects => ({
  checkInvitation: (payload, signal) => services.api.checkInvitation(payload, signal),
  acceptInvitation: async (payload, signal) => {
    const answer = await services.api.acceptInvitation(payload, signal)
    // A workspace was added to the user's list.
    services.cache.invalidate(["workspaces"])
    return answer
  },
  completeInvitation: (payload, signal) => services.api.completeInvitation(payload, signal),
  startSession: (handOff) => hooks.startSession(handOff),
  updateWorkspaceStore: (transition) => void services.workspaceStore.update(transition),
  now: () => services.clock.now(),
})
