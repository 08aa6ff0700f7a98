/**
 * Cloud KMS: every key ring in every KMS location of the project (projects.locations.list, then
 * locations.keyRings.list), every crypto key (keyRings.cryptoKeys.list) and each key's IAM policy.
 */
import { Schema } from "effect"
import { IamPolicy, lastSegment, listAll, Paged, type GcpCollectContext } from "../context.ts"

export const kmsResourceTypes = ["kms.keys", "kms.key_policies"] as const

export const CryptoKey = Schema.Struct({
  name: Schema.String,
  purpose: Schema.optionalKey(Schema.String),
  createTime: Schema.optionalKey(Schema.String),
  nextRotationTime: Schema.optionalKey(Schema.String),
  rotationPeriod: Schema.optionalKey(Schema.String),
  primary: Schema.optionalKey(Schema.Struct({ name: Schema.optionalKey(Schema.String), state: Schema.optionalKey(Schema.String) })),
})
export type CryptoKey = typeof CryptoKey.Type

const LocationsPage = Paged({ locations: Schema.optionalKey(Schema.Array(Schema.Struct({ name: Schema.optionalKey(Schema.String), locationId: Schema.String }))) })
const KeyRingsPage = Paged({ keyRings: Schema.optionalKey(Schema.Array(Schema.Struct({ name: Schema.String }))) })
const KeysPage = Paged({ cryptoKeys: Schema.optionalKey(Schema.Array(CryptoKey)) })

export interface KmsKey extends CryptoKey {
  readonly location: string
  /** IAM policy; undefined when it could not be read (or was not requested). */
  readonly policy: IamPolicy | undefined
}

export interface KmsInventory {
  readonly keys: ReadonlyArray<KmsKey> | undefined
}

export async function collectKms(ctx: GcpCollectContext): Promise<KmsInventory> {
  const base = ctx.endpoints.cloudkms
  const locations = await listAll(
    ctx,
    { type: "kms.keys", region: "global", op: "cloudkms.projects.locations.list" },
    `${base}/v1/projects/${ctx.projectId}/locations?pageSize=100`,
    LocationsPage,
    (page) => page.locations,
  )
  if (locations === undefined) return { keys: undefined }
  let complete = true
  const perLocation = await ctx.map(locations, async (loc) => {
    const rings = await listAll(
      ctx,
      { type: "kms.keys", region: loc.locationId, op: "cloudkms.projects.locations.keyRings.list" },
      `${base}/v1/projects/${ctx.projectId}/locations/${loc.locationId}/keyRings?pageSize=1000`,
      KeyRingsPage,
      (page) => page.keyRings,
    )
    if (rings === undefined) {
      complete = false
      return []
    }
    const keys = await ctx.map(rings, async (ring) => {
      const list = await listAll(
        ctx,
        { type: "kms.keys", region: loc.locationId, op: "cloudkms.projects.locations.keyRings.cryptoKeys.list", id: lastSegment(ring.name) },
        `${base}/v1/${ring.name}/cryptoKeys?pageSize=1000`,
        KeysPage,
        (page) => page.cryptoKeys,
      )
      if (list === undefined) complete = false
      return list ?? []
    })
    return keys.flat().map((k) => ({ ...k, location: loc.locationId }))
  })
  const found = perLocation.flat()
  ctx.countResources(found.length)
  const wantPolicies = ctx.wants("kms.key_policies")
  const keys = await ctx.map(found, async (k): Promise<KmsKey> => ({
    ...k,
    policy: wantPolicies
      ? await ctx.get(
          { type: "kms.key_policies", region: k.location, op: "cloudkms.projects.locations.keyRings.cryptoKeys.getIamPolicy", id: k.name },
          { url: `${base}/v1/${k.name}:getIamPolicy` },
          IamPolicy,
        )
      : undefined,
  }))
  // Keys of the rings that could be listed are still evaluated; the failed listings are recorded as errors.
  return { keys: complete || keys.length > 0 ? keys : undefined }
}
