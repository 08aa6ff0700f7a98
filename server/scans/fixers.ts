/**
 * The seam between the remediation job and the engines' fixers (server/remediation/{aws,gcp,azure}): which checks have an
 * automatic fix (and whether it can cut access), and running one on a stored detail row. The engine applies the fix
 * (SDK for AWS, REST for GCP and Azure), then re-collects the resource and re-evaluates the check; only a compliant
 * re-read counts as remediated.
 *
 * Stored rows use the contract's `compliance` flag and may carry a `remediate` record; the engines read their own row
 * shape (`compliant`, the check's fields), so rows are converted back here.
 */
import { ProviderIds } from "../../src/contracts/constants.ts"
import type { AwsCredentialsInput } from "../scanner/aws/clients.ts"
import type { AzureCredentialsInput } from "../scanner/azure/auth.ts"
import type { AzureEndpoints } from "../scanner/azure/endpoints.ts"
import type { DetailRow as EngineRow } from "../scanner/check.ts"
import type { GcpEndpoints } from "../scanner/gcp/endpoints.ts"
import { gcpCredentialsFromFields, type GcpCredentialsInput } from "../scanner/gcp/session.ts"
import { azureCredentialsFromFields } from "../scanner/azure/session.ts"
import { gcpEndpointsFromEnv } from "../scanner/gcp/endpoints.ts"
import { azureEndpointsFromEnv } from "../scanner/azure/endpoints.ts"
import { awsCredentialsInput } from "../accounts/connection-test.ts"
import type { StoredCredentials } from "../accounts/credential-vault.ts"
import { fixerFor as engineFixerFor, remediateFinding } from "../remediation/aws/remediate.ts"
import { azureFixerFor, remediateAzureFinding } from "../remediation/azure/remediate.ts"
import { gcpFixerFor, remediateGcpFinding } from "../remediation/gcp/remediate.ts"
import type { StoredRow } from "./finding-rows.ts"
import type { FixPlan, Json } from "../remediation/plan.ts"

export interface FixerInfo {
  readonly description: string
  /** Set when the fix can cut someone's access (e.g. closing an admin port): the warning to show. */
  readonly cutsAccess: string | undefined
}

/** The fixer of a check of the given provider (AWS when not said). */
export const fixerInfo = (checkId: string, cloudProviderId: number = ProviderIds.AWS): FixerInfo | undefined => {
  const f =
    cloudProviderId === ProviderIds.GCP
      ? gcpFixerFor(checkId)
      : cloudProviderId === ProviderIds.Azure
        ? azureFixerFor(checkId)
        : cloudProviderId === ProviderIds.AWS
          ? engineFixerFor(checkId)
          : undefined
  return f === undefined ? undefined : { description: f.description, cutsAccess: f.cutsAccess }
}

/** The engine's row shape from a stored row (`compliance` → `compliant`, without the remediation record). */
export const toEngineRow = (row: StoredRow): EngineRow => {
  const { compliance, remediate: _remediate, ...rest } = row
  return { ...(rest as Record<string, EngineRow[string]>), compliant: compliance === true } as EngineRow
}

export interface FixOutcome {
  /** "remediated": fixed and verified; "pass": already compliant, nothing changed; "failed": with the reason. */
  readonly status: "remediated" | "pass" | "failed"
  readonly message: string
  /** Plan fixers (issue 32): what was planned and changed, kept for the undo. */
  readonly record?: {
    readonly preImage: Json | undefined
    readonly plan: FixPlan | undefined
    readonly outputs: ReadonlyArray<Json> | undefined
    readonly postImage: Json | undefined
  }
}

/** Which engine runs the fix, with its credentials and endpoint overrides. */
export type FixTarget =
  | { readonly provider: "aws"; readonly credentials: AwsCredentialsInput; readonly endpoint: string | undefined }
  | { readonly provider: "gcp"; readonly credentials: GcpCredentialsInput; readonly endpoints: GcpEndpoints | undefined }
  | { readonly provider: "azure"; readonly credentials: AzureCredentialsInput; readonly endpoints: AzureEndpoints | undefined }

/**
 * The engine target of an account from its opened credentials (also used by the scan job); undefined when the stored
 * credentials cannot sign a request (AWS role without server keys, a missing field).
 */
export const fixTargetFor = (
  cloudProviderId: number,
  stored: StoredCredentials,
  awsEndpoint: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): FixTarget | undefined => {
  if (cloudProviderId === ProviderIds.GCP) {
    const credentials = gcpCredentialsFromFields(stored)
    return credentials === undefined ? undefined : { provider: "gcp", credentials, endpoints: gcpEndpointsFromEnv(env) }
  }
  if (cloudProviderId === ProviderIds.Azure) {
    const credentials = azureCredentialsFromFields(stored)
    return credentials === undefined ? undefined : { provider: "azure", credentials, endpoints: azureEndpointsFromEnv(env) }
  }
  const credentials = awsCredentialsInput(stored, env)
  return credentials === undefined ? undefined : { provider: "aws", credentials, endpoint: awsEndpoint }
}

export const runFixer = async (input: {
  readonly target: FixTarget
  readonly checkId: string
  readonly row: StoredRow
  readonly signal: AbortSignal
  /** Called with the pre-image and the plan before the first call changes anything (plan fixers of every engine). */
  readonly beforeApply?: (record: { readonly preImage: Json; readonly plan: FixPlan }) => Promise<void>
}): Promise<FixOutcome> => {
  const row = toEngineRow(input.row)
  const t = input.target
  const result =
    t.provider === "gcp"
      ? await remediateGcpFinding({
          credentials: t.credentials,
          checkId: input.checkId,
          row,
          ...(t.endpoints === undefined ? {} : { endpoints: t.endpoints }),
          signal: input.signal,
          ...(input.beforeApply === undefined ? {} : { beforeApply: input.beforeApply }),
        })
      : t.provider === "azure"
        ? await remediateAzureFinding({
            credentials: t.credentials,
            checkId: input.checkId,
            row,
            ...(t.endpoints === undefined ? {} : { endpoints: t.endpoints }),
            signal: input.signal,
            ...(input.beforeApply === undefined ? {} : { beforeApply: input.beforeApply }),
          })
        : await remediateFinding({
            credentials: t.credentials,
            checkId: input.checkId,
            row,
            ...(t.endpoint === undefined ? {} : { endpoint: t.endpoint }),
            signal: input.signal,
            ...(input.beforeApply === undefined ? {} : { beforeApply: input.beforeApply }),
          })
  const engine = result as { readonly pre_image?: Json; readonly plan?: FixPlan; readonly outputs?: ReadonlyArray<Json>; readonly post_image?: Json }
  return {
    status: result.status,
    message: result.message,
    ...(engine.plan === undefined ? {} : { record: { preImage: engine.pre_image, plan: engine.plan, outputs: engine.outputs, postImage: engine.post_image } }),
  }
}
