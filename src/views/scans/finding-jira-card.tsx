/**
 * The Jira panel of a finding's page (beyond the spec, issue 33 part 5), rendered from `findingJiraMachine`: the
 * Jira issues of the finding's account and check — key (a link to Jira), the resource or "Whole finding", the status
 * and a Closed mark once Jira says done —, "Create Jira issue", "One issue per resource" and "Refresh". Creating needs
 * the finding page's remediation permission (`canCreate`, as the Remediate and Mute buttons); the server decides.
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { JiraMessages } from "../../contracts/jira.ts"
import { findingJiraMachine } from "../../machines/finding-jira.machine.ts"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { withBreaks } from "../ui/identifier.tsx"
import { Link } from "../ui/link.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { ErrorBox, GatedButton, LoadingBox } from "../scanning/scan-parts.tsx"
import * as css from "../scanning/scanning.css.ts"
import { useIntegrationsEffects } from "../settings/integrations-effects-context.tsx"

export function FindingJiraCard({
  findingId,
  canCreate,
  viewerKnown,
  hasFailing,
}: {
  readonly findingId: number
  readonly canCreate: boolean
  readonly viewerKnown: boolean
  readonly hasFailing: boolean
}) {
  const effects = useIntegrationsEffects()
  const notify = useNotifyAction()
  const logic = useMemo(
    () =>
      findingJiraMachine.provide({
        actors: {
          findingIssues: effectActor(effects.findingIssues),
          createIssues: effectActor(effects.createIssues),
          refreshIssues: effectActor(effects.refreshIssues),
        },
        actions: { notify },
      }),
    [effects, notify],
  )
  const jiraRef = useActorRef(logic, { input: { findingId } })
  const issues = useSelector(jiraRef, (s) => s.context.issues)
  const loading = useSelector(jiraRef, (s) => s.matches("loading"))
  const failed = useSelector(jiraRef, (s) => s.matches("failed"))
  const loadError = useSelector(jiraRef, (s) => s.context.loadError)
  const creating = useSelector(jiraRef, (s) => s.matches("creating"))
  const refreshing = useSelector(jiraRef, (s) => s.matches("refreshing"))
  const canRequest = useSelector(jiraRef, (s) => s.can({ type: "jira.createRequested", mode: "finding" }))
  const canRefresh = useSelector(jiraRef, (s) => s.can({ type: "jira.refreshRequested" }))
  const create = (mode: "finding" | "per_resource") => jiraRef.send({ type: "jira.createRequested", mode })
  return (
    <Card
      title="Jira"
      description="Issues created from this check for this account, with their status in Jira."
      actions={
        hasFailing ? (
          <>
            <GatedButton
              variant="secondary"
              size="sm"
              allowed={canCreate || !viewerKnown}
              isDisabled={!viewerKnown || !canRequest}
              isPending={creating}
              tooltip={JiraMessages.createPermissionDenied}
              onBlockedPress={() => create("finding")}
              onPress={() => create("finding")}
            >
              Create Jira issue
            </GatedButton>
            <GatedButton
              variant="ghost"
              size="sm"
              allowed={canCreate || !viewerKnown}
              isDisabled={!viewerKnown || !canRequest}
              tooltip={JiraMessages.createPermissionDenied}
              onBlockedPress={() => create("per_resource")}
              onPress={() => create("per_resource")}
            >
              One issue per resource
            </GatedButton>
          </>
        ) : undefined
      }
    >
      {loading ? (
        <LoadingBox label="Loading Jira issues" />
      ) : failed ? (
        <ErrorBox
          title="Jira issues"
          message={loadError ?? ""}
          actions={
            <Button variant="secondary" size="sm" onPress={() => jiraRef.send({ type: "jira.retryRequested" })}>
              Retry
            </Button>
          }
        />
      ) : issues.length === 0 ? (
        <p className={css.subtitle}>No Jira issue yet.</p>
      ) : (
        <>
          <ul aria-label="Jira issues" className={css.facts}>
            {issues.map((issue) => (
              <li key={issue.issue_key}>
                <Link href={issue.issue_url} target="_blank" rel="noreferrer">
                  {issue.issue_key}
                </Link>{" "}
                <Badge tone={issue.closed ? "success" : issue.status_category === "indeterminate" ? "accent" : "neutral"}>
                  {issue.closed ? `Closed · ${issue.status_name || "Done"}` : issue.status_name || "To Do"}
                </Badge>{" "}
                <span>{issue.resource_uid === null ? "Whole finding" : withBreaks(issue.resource_uid)}</span>
              </li>
            ))}
          </ul>
          <Button variant="secondary" size="sm" isPending={refreshing} isDisabled={!canRefresh} onPress={() => jiraRef.send({ type: "jira.refreshRequested" })}>
            Refresh statuses
          </Button>
        </>
      )}
    </Card>
  )
}
