/**
 * The fleet page's Compliance section (beyond the spec, issue 31 item 4), rendered from `fleetComplianceMachine`: for a
 * framework of the organisation's provider, each requirement with its member accounts passing, failing (named),
 * passing with exceptions, not evaluated and not scanned, by each member's latest completed scan and narrowed by the
 * fleet page's unit and tag; the requirements CSV, the members × requirements CSV and the PDF report.
 */
import { useMemo } from "react"
import { useSelector } from "@xstate/react"
import { createColumnHelper } from "@tanstack/react-table"
import type { ActorRefFrom } from "xstate"
import type { OrgRequirement } from "../../contracts/organizations.ts"
import { unitLabel } from "../../contracts/outcomes.ts"
import type { DownloadedFile } from "../../machines/compliance-effects.ts"
import { fleetComplianceMachine, requirementsPage } from "../../machines/fleet-compliance.machine.ts"
import type { OrgComplianceFileKind } from "../../machines/fleet-effects.ts"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { DataTable, useIsDesktop, type ScanTableFeatures } from "../ui/data-table.tsx"
import { DownloadIcon } from "../ui/icons.tsx"
import { Select, SelectItem } from "../ui/select.tsx"
import { effectActor, useNotifyAction } from "../screen-actors.ts"
import { ErrorBox, Fact, LoadingBox } from "../scanning/scan-parts.tsx"
import { useComplianceEnvironment } from "../compliance/compliance-effects-context.tsx"
import * as shared from "../scanning/scanning.css.ts"
import { useFleetEffects } from "./fleet-effects-context.tsx"
import * as css from "./fleet.css.ts"
import { FleetPager } from "./fleet-pager.tsx"

export type ComplianceRef = ActorRefFrom<typeof fleetComplianceMachine>

/** The Compliance section's logic with the SPA's effects, handed to the fleet dashboard machine (its `compliance` child). */
export function useComplianceLogic() {
  const fleet = useFleetEffects()
  // The browser's download, as the Compliance screens hand their CSV and PDF over (tests record them instead).
  const { saveFile } = useComplianceEnvironment()
  const notify = useNotifyAction()
  return useMemo(
    () =>
      fleetComplianceMachine.provide({
        actors: {
          loadOrgFrameworks: effectActor(fleet.loadOrgFrameworks),
          loadOrgCompliance: effectActor(fleet.loadOrgCompliance),
          downloadOrgCompliance: effectActor(fleet.downloadOrgCompliance),
        },
        actions: { notify, saveFile: (_: unknown, file: DownloadedFile) => saveFile(file) },
      }),
    [fleet, notify, saveFile],
  )
}

const helper = createColumnHelper<ScanTableFeatures, OrgRequirement>()

const count = (n: number) => n.toLocaleString("en-US")

/** The requirement's id and title, and the failing members it names. */
function RequirementCell({ requirement }: { readonly requirement: OrgRequirement }) {
  return (
    <span className={css.memberCell}>
      <span>
        <span className={shared.identifier}>{requirement.id}</span> {requirement.title}
      </span>
      {requirement.failed_members.length === 0 ? null : (
        <span className={shared.subtle}>
          {/* The server names the first ORG_FAILED_NAMED failing members and counts them all (the members CSV names each). */}
          {`Failing: ${requirement.failed_members.map((m) => m.account_name).join(", ")}${
            requirement.members.failed > requirement.failed_members.length
              ? ` and ${count(requirement.members.failed - requirement.failed_members.length)} more`
              : ""
          }`}
        </span>
      )}
    </span>
  )
}

const columns = [
  helper.display({
    id: "requirement",
    header: "Requirement",
    cell: ({ row }) => <RequirementCell requirement={row.original} />,
  }),
  helper.display({ id: "passed", header: "Passing", cell: ({ row }) => count(row.original.members.passed) }),
  helper.display({ id: "failed", header: "Failing", cell: ({ row }) => count(row.original.members.failed) }),
  helper.display({ id: "exceptions", header: "With exceptions", cell: ({ row }) => count(row.original.members.passed_with_exceptions) }),
  helper.display({ id: "not_evaluated", header: "Not evaluated", cell: ({ row }) => count(row.original.members.not_evaluated + row.original.members.manual) }),
  helper.display({ id: "not_scanned", header: "Not scanned", cell: ({ row }) => count(row.original.members.not_scanned) }),
]

const DOWNLOADS: ReadonlyArray<{ readonly kind: OrgComplianceFileKind; readonly label: string }> = [
  { kind: "requirements", label: "Requirements CSV" },
  { kind: "members", label: "Members CSV" },
  { kind: "pdf", label: "PDF report" },
]

function Downloads({ complianceRef }: { readonly complianceRef: ComplianceRef }) {
  const downloading = useSelector(complianceRef, (s) => s.context.downloading)
  const canDownload = useSelector(complianceRef, (s) => s.can({ type: "download.requested", kind: "requirements" }))
  return (
    <div className={css.filters} role="group" aria-label="Compliance downloads">
      {DOWNLOADS.map((d) => (
        <Button
          key={d.kind}
          variant="secondary"
          isPending={downloading === d.kind}
          isDisabled={!canDownload}
          onPress={() => complianceRef.send({ type: "download.requested", kind: d.kind })}
        >
          <DownloadIcon />
          {d.label}
        </Button>
      ))}
    </div>
  )
}

function ComplianceBody({ complianceRef }: { readonly complianceRef: ComplianceRef }) {
  const compliance = useSelector(complianceRef, (s) => s.context.compliance)
  const frameworks = useSelector(complianceRef, (s) => s.context.frameworks)
  const frameworkId = useSelector(complianceRef, (s) => s.context.frameworkId)
  const busy = useSelector(complianceRef, (s) => s.matches({ view: "loading" }))
  const page = useSelector(complianceRef, (s) => requirementsPage(s.context), (a, b) => a.rows === b.rows || (a.page === b.page && a.rows.length === b.rows.length && a.rows.every((r, i) => r === b.rows[i])))
  const isDesktop = useIsDesktop()
  if (compliance === null) return <LoadingBox label="Loading the organisation's compliance" />
  const failing = compliance.requirements.filter((r) => r.members.failed > 0).length
  return (
    <>
      <div className={css.filters}>
        <Select
          label="Framework"
          className={css.filter}
          selectedKey={frameworkId}
          onSelectionChange={(key) => {
            if (key !== null) complianceRef.send({ type: "framework.changed", frameworkId: String(key) })
          }}
        >
          {frameworks.map((f) => (
            <SelectItem key={f.id} id={f.id}>
              {`${f.name} v${f.version}`}
            </SelectItem>
          ))}
        </Select>
      </div>
      <dl className={css.totals} aria-label="Compliance totals">
        <Fact label="Members scanned">{`${count(compliance.members_scanned)} of ${unitLabel(compliance.members_total, "members")}`}</Fact>
        <Fact label="Requirements">{count(compliance.requirements.length)}</Fact>
        <Fact label="Failing in some member">{`${count(failing)} ${failing === 1 ? "requirement" : "requirements"}`}</Fact>
      </dl>
      <Downloads complianceRef={complianceRef} />
      {isDesktop ? (
        <DataTable
          label="Requirements by member accounts passing and failing"
          columns={columns}
          data={page.rows}
          rowId={(r) => r.id}
          endColumns={["passed", "failed", "exceptions", "not_evaluated", "not_scanned"]}
          busy={busy}
          empty="No requirement in this framework."
        />
      ) : page.rows.length === 0 ? (
        <p className={shared.muted}>No requirement in this framework.</p>
      ) : (
        // Below desktop, cards (the product's table ≥ 1024 px, cards below): failing and passing first, never off-screen.
        <ul className={shared.cardList} aria-label="Requirements by member accounts passing and failing" aria-busy={busy}>
          {page.rows.map((r) => (
            <li key={r.id} className={shared.itemCard}>
              <RequirementCell requirement={r} />
              <dl className={css.cardFigures}>
                <Fact label="Failing">{count(r.members.failed)}</Fact>
                <Fact label="Passing">{count(r.members.passed)}</Fact>
                <Fact label="With exceptions">{count(r.members.passed_with_exceptions)}</Fact>
              </dl>
              <span className={shared.muted}>
                {`Not evaluated ${count(r.members.not_evaluated + r.members.manual)} · Not scanned ${count(r.members.not_scanned)}`}
              </span>
            </li>
          ))}
        </ul>
      )}
      <FleetPager label="Requirements pages" noun="Requirements" page={page} onPage={(p) => complianceRef.send({ type: "page.requested", page: p })} />
    </>
  )
}

/** The Compliance card of the fleet page, rendered from the fleet dashboard's `compliance` child (which the dashboard keeps on the page's unit and tag). */
export function FleetCompliance({ complianceRef }: { readonly complianceRef: ComplianceRef }) {
  const failed = useSelector(complianceRef, (s) => s.matches({ view: "failed" }))
  const empty = useSelector(complianceRef, (s) => s.matches({ view: "empty" }))
  const error = useSelector(complianceRef, (s) => s.context.error)
  return (
    <Card
      title="Compliance"
      aria-label="Compliance"
      level={2}
      description="Per requirement, the member accounts passing, failing and passing with exceptions, by each member's latest completed scan, for the unit and tag chosen above."
    >
      {failed ? (
        <ErrorBox
          title="The organisation's compliance could not be loaded"
          message={error ?? ""}
          actions={<Button onPress={() => complianceRef.send({ type: "compliance.retryRequested" })}>Retry</Button>}
        />
      ) : empty ? (
        <p className={shared.subtle}>No compliance framework covers this organisation's provider.</p>
      ) : (
        <ComplianceBody complianceRef={complianceRef} />
      )}
    </Card>
  )
}
