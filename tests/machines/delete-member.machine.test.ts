import { describe, expect, it } from "vitest"
import { createActor, SimulatedClock } from "xstate"
import type { OkMessage } from "../../src/contracts/common.ts"
import type { UserId } from "../../src/contracts/ids.ts"
import { deleteMemberMachine, type DeleteMemberReport } from "../../src/machines/delete-member.machine.ts"
import { coverTransitions, formatCoverage } from "../support/graph.ts"
import { controlled, httpFailure, never, networkFailure } from "./auth-fakes.ts"

/** The reports to the parent, recorded by replacing the two `sendParent` actions. */
const start = () => {
  const deletion = controlled<{ readonly user_to_delete: UserId }, OkMessage>()
  const reports: DeleteMemberReport[] = []
  const actor = createActor(
    deleteMemberMachine.provide({
      actors: { deleteMember: deletion.logic },
      actions: {
        reportSuccess: ({ context }) => void reports.push({ type: "member.deleteSucceeded", memberId: context.memberId }),
        reportFailure: ({ context, event }) =>
          void reports.push({
            type: "member.deleteFailed",
            memberId: context.memberId,
            message: (event as unknown as { error: { message: string } }).error.message,
          }),
      },
    }),
    { input: { memberId: 3 as UserId }, clock: new SimulatedClock() },
  ).start()
  return { actor, deletion, reports }
}

describe("delete-member machine", () => {
  it("drives every (state, event) edge", async () => {
    const provided = deleteMemberMachine.provide({
      actors: { deleteMember: never() },
      actions: { reportSuccess: () => {}, reportFailure: () => {} },
    })
    const input = { memberId: 3 as UserId }
    const coverage = await coverTransitions(provided, {
      input,
      createActor: (clock) => createActor(provided, { input, clock }),
      events: [
        { type: "xstate.done.actor.deleteMember", output: { ok: true, message: "ok" } },
        { type: "xstate.error.actor.deleteMember", error: httpFailure("team-delete-member", 500) },
      ],
    })
    console.info(formatCoverage("deleteMember", coverage))
    expect(coverage.missing).toEqual([])
    expect(coverage.driven).toBe(coverage.total)
  })

  it("calls DELETE with the member id and reports success", async () => {
    const { actor, deletion, reports } = start()
    try {
      expect(deletion.calls).toEqual([{ user_to_delete: 3 }])
      await deletion.resolve({ ok: true, message: "Team member deleted successfully" })
      expect(reports).toEqual([{ type: "member.deleteSucceeded", memberId: 3 }])
      expect(actor.getSnapshot().status).toBe("done")
    } finally {
      actor.stop()
    }
  })

  it("reports a failure with the §8 text", async () => {
    const { actor, deletion, reports } = start()
    try {
      await deletion.reject(networkFailure("team-delete-member"))
      expect(reports).toEqual([
        {
          type: "member.deleteFailed",
          memberId: 3,
          message: "Unable to connect to the server. Please check your internet connection.",
        },
      ])
    } finally {
      actor.stop()
    }
  })
})
