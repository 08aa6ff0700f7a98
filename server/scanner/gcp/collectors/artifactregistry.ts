/**
 * Artifact Registry (v1): the repositories of every location of the project (projects.locations.list, then
 * locations.repositories.list) with their encryption key, and each repository's IAM policy.
 */
import { Schema } from "effect"
import { IamPolicy, listAll, Paged, type GcpCollectContext } from "../context.ts"

export const artifactregistryResourceTypes = ["artifactregistry.repositories", "artifactregistry.repository_policies"] as const

export const Repository = Schema.Struct({
  name: Schema.String,
  format: Schema.optionalKey(Schema.String),
  mode: Schema.optionalKey(Schema.String),
  kmsKeyName: Schema.optionalKey(Schema.String),
})
export type Repository = typeof Repository.Type

export const LocationsPage = Paged({ locations: Schema.optionalKey(Schema.Array(Schema.Struct({ name: Schema.optionalKey(Schema.String), locationId: Schema.optionalKey(Schema.String) }))) })
export const RepositoriesPage = Paged({ repositories: Schema.optionalKey(Schema.Array(Repository)) })

export interface RepositoryWithPolicy extends Repository {
  readonly location: string
  readonly policy: IamPolicy | undefined
}

export interface ArtifactRegistryInventory {
  readonly repositories: ReadonlyArray<RepositoryWithPolicy> | undefined
}

export async function collectArtifactRegistry(ctx: GcpCollectContext): Promise<ArtifactRegistryInventory> {
  const base = ctx.endpoints.artifactregistry
  const locations = await listAll(
    ctx,
    { type: "artifactregistry.repositories", region: "global", op: "artifactregistry.projects.locations.list" },
    `${base}/v1/projects/${ctx.projectId}/locations?pageSize=100`,
    LocationsPage,
    (page) => page.locations,
  )
  if (locations === undefined) return { repositories: undefined }
  const perLocation = await ctx.map(
    locations.flatMap((l) => (l.locationId === undefined ? [] : [l.locationId])),
    async (loc) =>
      (
        (await listAll(
          ctx,
          { type: "artifactregistry.repositories", region: loc, op: "artifactregistry.projects.locations.repositories.list" },
          `${base}/v1/projects/${ctx.projectId}/locations/${loc}/repositories?pageSize=1000`,
          RepositoriesPage,
          (page) => page.repositories,
        )) ?? []
      ).map((r) => ({ ...r, location: loc })),
  )
  const listed = perLocation.flat()
  ctx.countResources(listed.length)
  const wantPolicies = ctx.wants("artifactregistry.repository_policies")
  const repositories = await ctx.map(listed, async (r): Promise<RepositoryWithPolicy> => ({
    ...r,
    policy: wantPolicies
      ? await ctx.get(
          { type: "artifactregistry.repository_policies", region: r.location, op: "artifactregistry.projects.locations.repositories.getIamPolicy", id: r.name },
          { url: `${base}/v1/${r.name}:getIamPolicy` },
          IamPolicy,
        )
      : undefined,
  }))
  // A location whose listing failed is recorded as an error (the checks then say "not evaluated" for it).
  return { repositories }
}
