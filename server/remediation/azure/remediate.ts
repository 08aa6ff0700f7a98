/**
 * Entry point of Azure remediation for the job layer:
 *
 *   remediateAzureFinding({ credentials: { tenantId, clientId, clientSecret, subscriptionId }, checkId, row, endpoints? })
 *     -> { status: "remediated" | "failed" | "pass", message, ... }
 *
 * Applies the check's fixer to the detail row (the row's ARM id must belong to the credentials' subscription),
 * then re-scans that check and reports "remediated" only when the resource now complies. Never throws for API
 * errors. The application needs write rights for the fix (e.g. Storage Account Contributor); a 403 comes back as
 * "failed" with Azure's AuthorizationFailed message.
 */
import type { DetailRow } from "../../scanner/check.ts"
import { runRemediation, type RemediationResult } from "../../scanner/rest/remediation.ts"
import { azureChecks } from "../../scanner/azure/catalogue.ts"
import { scanAzureService } from "../../scanner/azure/scan-service.ts"
import { openAzureSession, type AzureSessionInput } from "../../scanner/azure/session.ts"
import { azureFixers, type AzureFixContext, type AzureFixer } from "./fixers.ts"

export function azureFixerFor(checkId: string): AzureFixer | undefined {
  return azureFixers.find((f) => f.checkIds.includes(checkId))
}

export function azureRemediableChecks(): ReadonlyArray<{ readonly checkId: string; readonly description: string; readonly cutsAccess?: string }> {
  return azureFixers.flatMap((f) => f.checkIds.map((checkId) => ({ checkId, description: f.description, ...(f.cutsAccess === undefined ? {} : { cutsAccess: f.cutsAccess }) })))
}

export interface AzureRemediateInput extends AzureSessionInput {
  readonly checkId: string
  readonly row: DetailRow
  readonly now?: Date
}

export async function remediateAzureFinding(input: AzureRemediateInput): Promise<RemediationResult> {
  const check = azureChecks.find((c) => c.id === input.checkId)
  const { checkId: _c, row, now, ...session } = input
  return runRemediation<AzureFixContext>({
    checkId: input.checkId,
    row,
    checkKnown: check !== undefined,
    fixer: azureFixerFor(input.checkId),
    open: async () => {
      const s = await openAzureSession(session)
      return { client: s.client, subscriptionId: s.subscriptionId, endpoints: s.endpoints, ...(input.signal === undefined ? {} : { signal: input.signal }) }
    },
    verify: async () => {
      if (check === undefined) return undefined
      const scan = await scanAzureService({ ...session, service: check.service, checkIds: [check.id], ...(now === undefined ? {} : { now }) })
      return scan.findings[0]?.details.find((d) => d.resource_id.toLowerCase() === row.resource_id.toLowerCase())
    },
  })
}
