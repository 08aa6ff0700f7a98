/**
 * Renders the User Management and Profile Settings screens inside the app (toasts, overlay, router) with fake effects:
 * watched lists the test loads or fails (`members`, `invitations`), and calls recorded and answered by the test. One
 * simulated clock drives the toasts and the screens' timers (the row menu's 100 ms listener delay).
 */
import { act, fireEvent, render, screen } from "@testing-library/react"
import type { ReactNode } from "react"
import { memoryLocation } from "wouter/memory-location"
import { SimulatedClock } from "xstate"
import type { Timezone } from "../../src/contracts/auth.ts"
import type { Invitation } from "../../src/contracts/invitations.ts"
import type { TeamMember } from "../../src/contracts/team.ts"
import type { EffectCall } from "../../src/machines/auth-effects.ts"
import type { ProfileEffects } from "../../src/machines/profile-effects.ts"
import type { TeamEffects } from "../../src/machines/team-effects.ts"
import { App } from "../../src/views/app.tsx"
import { ProfileEffectsProvider } from "../../src/views/profile/profile-effects-context.tsx"
import { ProfileView } from "../../src/views/profile/profile.view.tsx"
import { TeamEffectsProvider } from "../../src/views/team/team-effects-context.tsx"
import { UserManagementView } from "../../src/views/team/user-management.view.tsx"
import { deferred, flush, type Deferred } from "../machines/auth-fakes.ts"
import { fakeQuery } from "../machines/team-fakes.ts"
import { preloadScreens } from "../../src/views/routes.tsx"

// Every screen but sign-in loads lazily; fetched up front, rendering a route is synchronous as in a warm browser.
await preloadScreens()

type Answer<F> = F extends EffectCall<infer _P, infer A> ? A : never
type Payload<F> = F extends EffectCall<infer P, infer _A> ? P : never

/** A recorded call that waits for the test: `resolve` / `reject` answer the oldest open one. */
export const pendingCall = <F extends EffectCall<never, unknown>>() => {
  const calls: Payload<F>[] = []
  const open: Deferred<Answer<F>>[] = []
  const fn = ((payload: Payload<F>) => {
    calls.push(payload)
    const d = deferred<Answer<F>>()
    open.push(d)
    return d.promise
  }) as unknown as F
  const settle = async (apply: (d: Deferred<Answer<F>>) => void) => {
    const next = open.shift()
    if (next === undefined) throw new Error("no open call")
    await act(async () => {
      apply(next)
      await flush()
    })
  }
  return {
    fn,
    calls,
    resolve: (value: Answer<F>) => settle((d) => d.resolve(value)),
    reject: (error: unknown) => settle((d) => d.reject(error)),
  }
}

/** Runs `fn` inside act() and lets the microtasks it queued run (toasts are shown a microtask later). */
const inAct = (fn: () => void) =>
  act(async () => {
    fn()
    await flush()
  })

export const fakeTeamEffects = () => {
  const members = fakeQuery<ReadonlyArray<TeamMember>>()
  const invitations = fakeQuery<ReadonlyArray<Invitation>>()
  const calls = {
    workspaceInfo: pendingCall<TeamEffects["loadWorkspaceInfo"]>(),
    roles: pendingCall<TeamEffects["loadRoles"]>(),
    createUser: pendingCall<TeamEffects["createUser"]>(),
    updateMember: pendingCall<TeamEffects["updateMember"]>(),
    deleteMember: pendingCall<TeamEffects["deleteMember"]>(),
    sendPasswordReset: pendingCall<TeamEffects["sendPasswordReset"]>(),
    inviteMembers: pendingCall<TeamEffects["inviteMembers"]>(),
    resendInvitation: pendingCall<TeamEffects["resendInvitation"]>(),
    cancelInvitation: pendingCall<TeamEffects["cancelInvitation"]>(),
  }
  const refetches = { members: 0, invitations: 0 }
  const effects: TeamEffects = {
    watchTeamMembers: members.watch,
    refetchTeamMembers: () => void (refetches.members += 1),
    loadWorkspaceInfo: calls.workspaceInfo.fn,
    loadRoles: calls.roles.fn,
    createUser: calls.createUser.fn,
    updateMember: calls.updateMember.fn,
    deleteMember: calls.deleteMember.fn,
    sendPasswordReset: calls.sendPasswordReset.fn,
    watchInvitations: invitations.watch,
    refetchInvitations: () => void (refetches.invitations += 1),
    inviteMembers: calls.inviteMembers.fn,
    resendInvitation: calls.resendInvitation.fn,
    cancelInvitation: calls.cancelInvitation.fn,
    origin: "https://app.example.com",
  }
  return {
    effects,
    calls,
    refetches,
    /** The members list arrives (inside act). */
    loadMembers: (rows: ReadonlyArray<TeamMember>) => inAct(() => members.succeed(rows)),
    failMembers: (error: unknown) => inAct(() => members.fail(error)),
    loadInvitations: (rows: ReadonlyArray<Invitation>) => inAct(() => invitations.succeed(rows)),
    failInvitations: (error: unknown) => inAct(() => invitations.fail(error)),
  }
}

export const fakeProfileEffects = () => {
  const calls = {
    profile: pendingCall<ProfileEffects["loadProfile"]>(),
    timezones: pendingCall<ProfileEffects["loadTimezones"]>(),
    updateProfile: pendingCall<ProfileEffects["updateProfile"]>(),
    changePassword: pendingCall<ProfileEffects["changePassword"]>(),
  }
  const effects: ProfileEffects = {
    loadProfile: calls.profile.fn,
    loadTimezones: calls.timezones.fn,
    updateProfile: calls.updateProfile.fn,
    changePassword: calls.changePassword.fn,
  }
  return { effects, calls }
}

const renderScreen = (path: string, screenNode: ReactNode) => {
  const location = memoryLocation({ path, record: true })
  const clock = new SimulatedClock()
  const result = render(
    <App clock={clock} location={location}>
      {screenNode}
    </App>,
  )
  const tick = (ms: number) => act(() => clock.increment(ms))
  return { ...result, clock, tick }
}

export const renderUserManagement = (fakes = fakeTeamEffects()) => {
  const clock = new SimulatedClock()
  const rendered = renderScreen(
    "/dashboard/users",
    <TeamEffectsProvider effects={fakes.effects} clock={clock}>
      <UserManagementView />
    </TeamEffectsProvider>,
  )
  /** Advances the screen's clock (row menu delay) inside act(). */
  const tickScreen = (ms: number) => act(() => clock.increment(ms))
  return { ...rendered, fakes, tickScreen }
}

export const renderProfile = (fakes = fakeProfileEffects()) => {
  const rendered = renderScreen(
    "/dashboard/profile",
    <ProfileEffectsProvider effects={fakes.effects}>
      <ProfileView />
    </ProfileEffectsProvider>,
  )
  return { ...rendered, fakes }
}

export const sampleTimezones: ReadonlyArray<Timezone> = [
  { value: "Europe/London", label: "(UTC+00:00) Europe/London", offset: "+00:00" },
  { value: "Asia/Kolkata", label: "(UTC+05:30) Asia/Kolkata", offset: "+05:30" },
]


/** Types into a field found by its label (RAC inputs are controlled by the machine). */
export const typeInto = (label: string | RegExp, value: string, index = 0) =>
  fireEvent.change(screen.getAllByLabelText(label, { selector: "input" })[index]!, { target: { value } })

export const press = (name: string | RegExp) => fireEvent.click(screen.getByRole("button", { name }))
