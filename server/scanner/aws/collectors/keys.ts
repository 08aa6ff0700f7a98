/**
 * Who manages the KMS keys other resources are encrypted with: "AWS" (aws/<service> keys, which nobody can restrict
 * or audit through a key policy of their own) or "CUSTOMER". Read with kms:DescribeKey once per distinct key and one
 * alias listing per region: moto reports its auto-created aws/<service> keys as CUSTOMER, and aliases settle it.
 */
import { DescribeKeyCommand, ListAliasesCommand } from "@aws-sdk/client-kms"
import type { CollectContext } from "../context.ts"

export type KeyManager = "AWS" | "CUSTOMER"

/** Key reference (id, ARN or alias) -> manager; absent when the key could not be read (the error is recorded under `type`). */
export async function resolveKeyManagers(ctx: CollectContext, region: string, type: string, refs: ReadonlyArray<string | undefined>): Promise<ReadonlyMap<string, KeyManager>> {
  const out = new Map<string, KeyManager>()
  const wanted = [...new Set(refs.filter((r): r is string => r !== undefined && r !== ""))]
  const pending: string[] = []
  for (const ref of wanted) {
    if (/(^|:)alias\/aws\//.test(ref)) out.set(ref, "AWS")
    else pending.push(ref)
  }
  if (pending.length === 0) return out
  const kms = ctx.clients.get("kms", region)
  const [aliases, described] = await Promise.all([
    ctx.paginate(
      { type, region, op: "kms:ListAliases" },
      (marker, o) => kms.send(new ListAliasesCommand({ ...(marker === undefined ? {} : { Marker: marker }) }), o),
      (p) => ({ items: p.Aliases, next: p.Truncated === true ? p.NextMarker : undefined }),
    ),
    ctx.map(pending, async (ref) => ({ ref, meta: (await ctx.call({ type, region, op: "kms:DescribeKey", id: ref }, (o) => kms.send(new DescribeKeyCommand({ KeyId: ref }), o)))?.KeyMetadata })),
  ])
  const awsAliased = new Set((aliases ?? []).filter((a) => a.AliasName?.startsWith("alias/aws/") === true).flatMap((a) => (a.TargetKeyId === undefined ? [] : [a.TargetKeyId])))
  for (const { ref, meta } of described) {
    if (meta === undefined) continue
    out.set(ref, meta.KeyManager === "AWS" || (meta.KeyId !== undefined && awsAliased.has(meta.KeyId)) ? "AWS" : "CUSTOMER")
  }
  return out
}
