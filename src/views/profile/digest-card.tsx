/**
 * The profile's "Scan digest" card (beyond the spec, issue 13), over `digestPreferenceMachine`: one switch for the email
 * sent after each completed scan of the workspace. Its effects come from the scanning effects (GET / PUT
 * /api/user/scan-digest); this module imports only its own machine, so the profile page stays light.
 *
 * The digest email's "Turn off scan digests" link lands here as /dashboard/profile?digest=off (behind sign-in): while
 * the digest is on, the card offers to turn it off with one press; once off, it says so.
 */
import { useActorRef, useSelector } from "@xstate/react"
import { useMemo } from "react"
import { useSearchParams } from "wouter"
import { fromPromise } from "xstate"
import type { DigestPreference } from "../../contracts/posture.ts"
import { PostureMessages } from "../../contracts/posture.ts"
import { digestPreferenceMachine } from "../../machines/digest-preference.machine.ts"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Checkbox } from "../ui/checkbox.tsx"
import { Spinner } from "../ui/spinner.tsx"
import { AlertBox } from "../ui/alert-box.tsx"
import { useScanEnvironment } from "../scanning/scan-effects-context.tsx"
import { useNotifyAction } from "../screen-actors.ts"

function useDigestLogic() {
  const { effects } = useScanEnvironment()
  const notify = useNotifyAction()
  return useMemo(
    () =>
      digestPreferenceMachine.provide({
        actors: {
          getDigest: fromPromise<DigestPreference, void>(({ signal }) => effects.getDigest(undefined, signal)),
          putDigest: fromPromise<{ readonly message: string; readonly preference: DigestPreference }, DigestPreference>(({ input, signal }) =>
            effects.putDigest(input, signal)),
        },
        actions: { notify },
      }),
    [effects, notify],
  )
}

export function DigestCard() {
  const { clock } = useScanEnvironment()
  const actorRef = useActorRef(useDigestLogic(), clock === undefined ? {} : { clock })
  const enabled = useSelector(actorRef, (s) => s.context.enabled)
  const loading = useSelector(actorRef, (s) => s.matches("loading"))
  const failed = useSelector(actorRef, (s) => s.matches("failed"))
  const saving = useSelector(actorRef, (s) => s.matches("saving"))
  const error = useSelector(actorRef, (s) => s.context.error)
  const [params] = useSearchParams()
  const fromMailLink = params.get("digest") === "off"
  return (
    <Card title="Email notifications" description="What we send you about the workspace's scans.">
      {loading ? (
        <Spinner aria-label="Loading your email preference" />
      ) : failed ? (
        <AlertBox
          tone="error"
          title={error ?? PostureMessages.loadDigestFailed}
          action={
            <Button variant="secondary" size="sm" onPress={() => actorRef.send({ type: "digest.retryRequested" })}>
              Retry
            </Button>
          }
        />
      ) : (
        <>
        {fromMailLink ? (
          enabled || saving ? (
            <AlertBox
              tone="info"
              title="Stop the scan digest emails?"
              action={
                <Button size="sm" isPending={saving} onPress={() => actorRef.send({ type: "digest.toggled", enabled: false })}>
                  Turn off scan digests
                </Button>
              }
            >
              You followed the link in a scan digest. You can turn them on again here at any time.
            </AlertBox>
          ) : (
            <AlertBox tone="success" title="Scan digests are off">
              You will not receive scan digest emails. Tick the box below to receive them again.
            </AlertBox>
          )
        ) : null}
        <Checkbox isSelected={enabled} isDisabled={saving} onChange={(on) => actorRef.send({ type: "digest.toggled", enabled: on })}>
          Email me a digest after each scan: new failing, fixed and still failing resources by severity
        </Checkbox>
        </>
      )}
    </Card>
  )
}
