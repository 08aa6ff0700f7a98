/** Secrets Manager inventory per region: secrets with their rotation settings. */
import { ListSecretsCommand } from "@aws-sdk/client-secrets-manager"
import type { CollectContext } from "../context.ts"

export const secretsmanagerResourceTypes = ["secretsmanager.secrets"] as const

export interface Secret {
  readonly name: string
  readonly arn: string
  readonly rotationEnabled: boolean
  readonly rotationDays: number | undefined
  readonly lastRotated: Date | undefined
  readonly created: Date | undefined
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
    return {
      region,
      secrets: list?.map((s) => ({
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
