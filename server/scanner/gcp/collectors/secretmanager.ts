/** Secret Manager (v1): the project's secrets (projects.secrets.list) with their rotation, and each one's IAM policy. */
import { Schema } from "effect"
import { IamPolicy, listAll, Paged, type GcpCollectContext } from "../context.ts"

export const secretmanagerResourceTypes = ["secretmanager.secrets", "secretmanager.secret_policies"] as const

export const Secret = Schema.Struct({
  name: Schema.String,
  rotation: Schema.optionalKey(Schema.Struct({ nextRotationTime: Schema.optionalKey(Schema.String), rotationPeriod: Schema.optionalKey(Schema.String) })),
})
export type Secret = typeof Secret.Type

export const SecretsPage = Paged({ secrets: Schema.optionalKey(Schema.Array(Secret)), totalSize: Schema.optionalKey(Schema.Number) })

export interface SecretWithPolicy extends Secret {
  /** IAM policy; undefined when it could not be read (or was not requested). */
  readonly policy: IamPolicy | undefined
}

export interface SecretManagerInventory {
  readonly secrets: ReadonlyArray<SecretWithPolicy> | undefined
}

export async function collectSecretManager(ctx: GcpCollectContext): Promise<SecretManagerInventory> {
  const base = ctx.endpoints.secretmanager
  const listed = await listAll(
    ctx,
    { type: "secretmanager.secrets", region: "global", op: "secretmanager.projects.secrets.list" },
    `${base}/v1/projects/${ctx.projectId}/secrets?pageSize=250`,
    SecretsPage,
    (page) => page.secrets,
  )
  if (listed === undefined) return { secrets: undefined }
  ctx.countResources(listed.length)
  const wantPolicies = ctx.wants("secretmanager.secret_policies")
  const secrets = await ctx.map(listed, async (s): Promise<SecretWithPolicy> => ({
    ...s,
    policy: wantPolicies
      ? await ctx.get({ type: "secretmanager.secret_policies", region: "global", op: "secretmanager.projects.secrets.getIamPolicy", id: s.name }, { url: `${base}/v1/${s.name}:getIamPolicy` }, IamPolicy)
      : undefined,
  }))
  return { secrets }
}
