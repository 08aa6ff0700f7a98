/**
 * Entry point of AWS remediation for the job layer:
 *
 *   remediateFinding({ credentials, checkId, row, endpoint? })
 *     -> { status: "remediated" | "failed" | "pass", message, ... }
 *
 * Applies the check's fixer to the detail row, then re-collects the resource (a scan of that check, limited to
 * the row's region) and reports "remediated" only when the check now passes for that resource. Never throws
 * for AWS errors: they come back as status "failed" with the reason.
 */
import { GetCallerIdentityCommand } from "@aws-sdk/client-sts"
import type { DetailRow } from "../../scanner/check.ts"
import { makeAwsClients, type AwsCredentialsInput, type CommandStub } from "../../scanner/aws/clients.ts"
import { awsChecks } from "../../scanner/aws/catalogue.ts"
import { classifyAwsError } from "../../scanner/aws/errors.ts"
import { scanService } from "../../scanner/aws/scan-service.ts"
import { computeFixers } from "./compute.ts"
import { dataFixers } from "./data.ts"
import { ec2Fixers } from "./ec2.ts"
import { FixError, type Fixer } from "./fixer.ts"
import { iamFixers } from "./iam.ts"
import { loggingFixers } from "./logging.ts"
import { s3Fixers } from "./s3.ts"
import { serviceFixers } from "./services.ts"

export const awsFixers: ReadonlyArray<Fixer> = [...s3Fixers, ...ec2Fixers, ...iamFixers, ...loggingFixers, ...dataFixers, ...computeFixers, ...serviceFixers]

export function fixerFor(checkId: string): Fixer | undefined {
  return awsFixers.find((f) => f.checkIds.includes(checkId))
}

/** Check ids with an automatic fix, with what the fix does and whether it can cut access (for the UI). */
export function remediableChecks(): ReadonlyArray<{ readonly checkId: string; readonly description: string; readonly cutsAccess?: string }> {
  return awsFixers.flatMap((f) => f.checkIds.map((checkId) => ({ checkId, description: f.description, ...(f.cutsAccess === undefined ? {} : { cutsAccess: f.cutsAccess }) })))
}

export interface RemediateInput {
  readonly credentials: AwsCredentialsInput
  readonly checkId: string
  readonly row: DetailRow
  readonly endpoint?: string
  readonly homeRegion?: string
  readonly maxAttempts?: number
  readonly signal?: AbortSignal
  /** Evaluation clock of the verification scan (age rules). */
  readonly now?: Date
  readonly stub?: CommandStub
}

export type RemediationStatus = "remediated" | "failed" | "pass"

export interface RemediationResult {
  readonly status: RemediationStatus
  readonly message: string
  readonly check_id: string
  readonly resource_id: string
  readonly region: string
  readonly attempted_at: string
  /** What the fixer reported doing (absent when nothing was applied). */
  readonly action?: string
  /** The re-evaluated row, when the resource was found again. */
  readonly after?: DetailRow
}

export async function remediateFinding(input: RemediateInput): Promise<RemediationResult> {
  const attemptedAt = new Date().toISOString()
  const resourceId = typeof input.row.resource_id === "string" ? input.row.resource_id : ""
  const rowRegion = typeof input.row.region === "string" ? input.row.region : ""
  const result = (status: RemediationStatus, message: string, extra: { action?: string; after?: DetailRow } = {}): RemediationResult => ({
    status,
    message,
    check_id: input.checkId,
    resource_id: resourceId,
    region: rowRegion,
    attempted_at: attemptedAt,
    ...extra,
  })

  const check = awsChecks.find((c) => c.id === input.checkId)
  if (check === undefined) return result("failed", `Unknown check "${input.checkId}".`)
  const fixer = fixerFor(input.checkId)
  if (fixer === undefined) return result("failed", "No automatic remediation is available for this check; follow the remediation guidance.")
  if (resourceId === "" || rowRegion === "") return result("failed", "The finding row does not identify a resource (resource_id and region are required).")

  const homeRegion = input.homeRegion ?? "us-east-1"
  const region = rowRegion === "global" ? homeRegion : rowRegion
  const common = {
    credentials: input.credentials,
    homeRegion,
    ...(input.endpoint === undefined ? {} : { endpoint: input.endpoint }),
    ...(input.maxAttempts === undefined ? {} : { maxAttempts: input.maxAttempts }),
    ...(input.stub === undefined ? {} : { stub: input.stub }),
  }
  const verify = async (): Promise<DetailRow | undefined> => {
    const scan = await scanService({
      ...common,
      service: check.service,
      regions: [region],
      checkIds: [check.id],
      ...(input.now === undefined ? {} : { now: input.now }),
      ...(input.signal === undefined ? {} : { signal: input.signal }),
    })
    return scan.findings[0]?.details.find((d) => d.resource_id === resourceId && (rowRegion === "global" || d.region === rowRegion))
  }

  if (input.row.compliant === true) {
    const now = await verify().catch(() => undefined)
    if (now?.compliant === true) return result("pass", "The resource already complies; nothing was changed.", { after: now })
  }

  const clients = makeAwsClients(common)
  let action: string
  try {
    const identity = await clients.get("sts", homeRegion).send(new GetCallerIdentityCommand({}), input.signal === undefined ? {} : { abortSignal: input.signal })
    action = await fixer.apply(
      { clients, accountId: identity.Account ?? "", partition: identity.Arn?.split(":")[1] ?? "aws", region, ...(input.signal === undefined ? {} : { signal: input.signal }) },
      input.row,
    )
  } catch (error) {
    if (error instanceof FixError) return result("failed", `Remediation failed: ${error.message}.`)
    const c = classifyAwsError(error)
    return result("failed", `Remediation failed: ${c.code}: ${c.message}`)
  } finally {
    clients.destroy()
  }

  let after: DetailRow | undefined
  try {
    after = await verify()
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return result("failed", `${action} The result could not be verified: ${message}`, { action })
  }
  if (after === undefined) return result("failed", `${action} The resource was not found when re-reading it, so the fix is unverified.`, { action })
  if (!after.compliant) return result("failed", `${action} The check still fails after the change: ${after.reason}`, { action, after })
  return result("remediated", `${action} Verified: ${after.reason}`, { action, after })
}
