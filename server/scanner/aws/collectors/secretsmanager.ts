/** Secrets Manager inventory per region: secrets with their rotation settings. */
import { GetResourcePolicyCommand, ListSecretsCommand } from "@aws-sdk/client-secrets-manager"
import { parsePolicy, type PolicyDocument } from "../policy.ts"
import type { CollectContext } from "../context.ts"

export const secretsmanagerResourceTypes = ["secretsmanager.secrets", "secretsmanager.policies"] as const

export interface Secret {
  readonly name: string
  readonly arn: string
  readonly rotationEnabled: boolean
  readonly rotationDays: number | undefined
  readonly lastRotated: Date | undefined
  readonly created: Date | undefined
  /** Resource policy; null when none, undefined when not read. */
  readonly policy: PolicyDocument | null | undefined
  readonly kmsKeyId: string | undefined
}

export interface SecretsManagerInventory {
  readonly regions: ReadonlyArray<{ readonly region: string; readonly secrets: ReadonlyArray<Secret> | undefined }>
}

export async function collectSecretsManager(ctx: CollectContext): Promise<SecretsManagerInventory> {
  const regions = await ctx.perRegion(async (region) => {
    const list = await ctx.paginate(
      { type: "secretsmanager.secrets", region, op: "secretsmanager:ListSecrets" },
      (t, o) => ctx.clients.get("secretsmanager", region).send(new ListSecretsCommand({ ...(t === undefined ? {} : { NextToken: t }) }), o),
      (p) => ({ items: p.SecretList, next: p.NextToken }),
    )
    ctx.countResources(list?.length ?? 0)
    const policies = ctx.wants("secretsmanager.policies") && list !== undefined
      ? await ctx.map(list, (s) =>
          ctx.call({ type: "secretsmanager.policies", region, op: "secretsmanager:GetResourcePolicy", id: s.Name ?? "" }, (o) =>
            ctx.clients.get("secretsmanager", region).send(new GetResourcePolicyCommand({ SecretId: s.ARN ?? s.Name ?? "" }), o),
          ),
        )
      : undefined
    return {
      region,
      secrets: list?.map((s, i) => ({
        policy: policies === undefined ? undefined : policies[i] === undefined ? undefined : (parsePolicy(policies[i]?.ResourcePolicy) ?? null),
        kmsKeyId: s.KmsKeyId,
        name: s.Name ?? "",
        arn: s.ARN ?? "",
        rotationEnabled: s.RotationEnabled === true,
        rotationDays: s.RotationRules?.AutomaticallyAfterDays,
        lastRotated: s.LastRotatedDate,
        created: s.CreatedDate,
      })),
    }
  })
  return { regions }
}
