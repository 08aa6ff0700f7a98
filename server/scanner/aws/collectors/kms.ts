/**
 * KMS inventory per region: keys with their metadata, rotation status (customer managed symmetric keys) and key
 * policy. Keys behind `alias/aws/*` are AWS managed even when the endpoint says otherwise (moto reports them as
 * CUSTOMER), so the aliases are read too.
 */
import { DescribeKeyCommand, GetKeyPolicyCommand, GetKeyRotationStatusCommand, ListAliasesCommand, ListKeysCommand } from "@aws-sdk/client-kms"
import type { CollectContext } from "../context.ts"
import { parsePolicy, type PolicyDocument } from "../policy.ts"

export const kmsResourceTypes = ["kms.keys", "kms.rotation", "kms.policies"] as const

export interface KmsKey {
  readonly id: string
  readonly arn: string
  readonly aliases: ReadonlyArray<string>
  readonly customerManaged: boolean
  readonly state: string
  readonly spec: string
  readonly usage: string
  readonly origin: string
  readonly deletionDate: Date | undefined
  readonly rotationEnabled: boolean | undefined
  readonly policy: PolicyDocument | null | undefined
}

export interface KmsRegion {
  readonly region: string
  readonly keys: ReadonlyArray<KmsKey> | undefined
}

export interface KmsInventory {
  readonly regions: ReadonlyArray<KmsRegion>
}

export async function collectKms(ctx: CollectContext): Promise<KmsInventory> {
  const regions = await ctx.perRegion(async (region): Promise<KmsRegion> => {
    const kms = ctx.clients.get("kms", region)
    const spec = (type: (typeof kmsResourceTypes)[number], op: string, id?: string) => ({ type, region, op, ...(id === undefined ? {} : { id }) })
    const [keys, aliases] = await Promise.all([
      ctx.paginate(
        spec("kms.keys", "kms:ListKeys"),
        (marker, o) => kms.send(new ListKeysCommand({ ...(marker === undefined ? {} : { Marker: marker }) }), o),
        (p) => ({ items: p.Keys, next: p.Truncated === true ? p.NextMarker : undefined }),
      ),
      ctx.paginate(
        spec("kms.keys", "kms:ListAliases"),
        (marker, o) => kms.send(new ListAliasesCommand({ ...(marker === undefined ? {} : { Marker: marker }) }), o),
        (p) => ({ items: p.Aliases, next: p.Truncated === true ? p.NextMarker : undefined }),
      ),
    ])
    if (keys === undefined || aliases === undefined) return { region, keys: undefined }
    const out = await ctx.map(keys, async (k): Promise<KmsKey | undefined> => {
      const id = k.KeyId ?? ""
      const d = await ctx.call(spec("kms.keys", "kms:DescribeKey", id), (o) => kms.send(new DescribeKeyCommand({ KeyId: id }), o))
      const m = d?.KeyMetadata
      if (m === undefined) return undefined
      const keyAliases = aliases.filter((a) => a.TargetKeyId === id).flatMap((a) => (a.AliasName === undefined ? [] : [a.AliasName]))
      const customerManaged = m.KeyManager === "CUSTOMER" && !keyAliases.some((a) => a.startsWith("alias/aws/"))
      const state = m.KeyState ?? ""
      const rotatable = customerManaged && m.KeySpec === "SYMMETRIC_DEFAULT" && state === "Enabled" && m.Origin !== "EXTERNAL"
      const [rotation, policy] = await Promise.all([
        rotatable && ctx.wants("kms.rotation")
          ? ctx.call(spec("kms.rotation", "kms:GetKeyRotationStatus", id), (o) => kms.send(new GetKeyRotationStatusCommand({ KeyId: id }), o))
          : Promise.resolve(undefined),
        customerManaged && state !== "PendingDeletion" && ctx.wants("kms.policies")
          ? ctx.call(spec("kms.policies", "kms:GetKeyPolicy", id), (o) => kms.send(new GetKeyPolicyCommand({ KeyId: id, PolicyName: "default" }), o))
          : Promise.resolve(undefined),
      ])
      return {
        id,
        arn: m.Arn ?? k.KeyArn ?? "",
        aliases: keyAliases,
        customerManaged,
        state,
        spec: m.KeySpec ?? "",
        usage: m.KeyUsage ?? "",
        origin: m.Origin ?? "",
        deletionDate: m.DeletionDate,
        rotationEnabled: rotation?.KeyRotationEnabled,
        policy: policy === undefined ? undefined : (parsePolicy(policy.Policy) ?? null),
      }
    })
    const list = out.filter((k): k is KmsKey => k !== undefined)
    ctx.countResources(list.length)
    return { region, keys: list }
  })
  return { regions }
}
