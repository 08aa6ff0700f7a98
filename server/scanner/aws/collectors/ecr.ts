/** ECR inventory per region: repositories (scan on push, tag mutability, lifecycle and repository policies) and the registry scanning configuration. */
import {
  DescribeRepositoriesCommand,
  GetLifecyclePolicyCommand,
  GetRegistryScanningConfigurationCommand,
  GetRepositoryPolicyCommand,
} from "@aws-sdk/client-ecr"
import type { CollectContext } from "../context.ts"
import { parsePolicy, type PolicyDocument } from "../policy.ts"
import { resolveKeyManagers, type KeyManager } from "./keys.ts"

export const ecrResourceTypes = ["ecr.repositories", "ecr.registry_scanning", "ecr.lifecycle", "ecr.policies", "ecr.kms"] as const

export interface EcrRepository {
  readonly name: string
  readonly arn: string
  readonly scanOnPush: boolean
  readonly tagMutability: string
  readonly hasLifecyclePolicy: boolean | undefined
  readonly policy: PolicyDocument | null | undefined
  /** AES256 or KMS; the key and its manager when KMS (aws/ecr when no key is named). */
  readonly encryptionType: string
  readonly kmsKey: string | undefined
  readonly kmsManager: KeyManager | undefined
}

export interface EcrRegion {
  readonly region: string
  readonly repositories: ReadonlyArray<EcrRepository> | undefined
  /** Registry-level scanning: type and whether a scan-on-push/continuous rule covers every repository ("*"). */
  readonly registryScanning: { readonly type: string; readonly coversAll: boolean } | undefined
}

export interface EcrInventory {
  readonly regions: ReadonlyArray<EcrRegion>
}

export async function collectEcr(ctx: CollectContext): Promise<EcrInventory> {
  const regions = await ctx.perRegion(async (region): Promise<EcrRegion> => {
    const ecr = ctx.clients.get("ecr", region)
    const [list, registry] = await Promise.all([
      ctx.paginate(
        { type: "ecr.repositories", region, op: "ecr:DescribeRepositories" },
        (t, o) => ecr.send(new DescribeRepositoriesCommand({ ...(t === undefined ? {} : { nextToken: t }) }), o),
        (p) => ({ items: p.repositories, next: p.nextToken }),
      ),
      ctx.wants("ecr.registry_scanning")
        ? ctx.call({ type: "ecr.registry_scanning", region, op: "ecr:GetRegistryScanningConfiguration" }, (o) => ecr.send(new GetRegistryScanningConfigurationCommand({}), o))
        : Promise.resolve(undefined),
    ])
    const repositories =
      list === undefined
        ? undefined
        : await ctx.map(list, async (r): Promise<EcrRepository> => {
            const name = r.repositoryName ?? ""
            const [life, policy] = await Promise.all([
              ctx.wants("ecr.lifecycle")
                ? ctx.optional({ type: "ecr.lifecycle", region, op: "ecr:GetLifecyclePolicy", id: name }, ["LifecyclePolicyNotFoundException"], (o) =>
                    ecr.send(new GetLifecyclePolicyCommand({ repositoryName: name }), o),
                  )
                : Promise.resolve(undefined),
              ctx.wants("ecr.policies")
                ? ctx.optional({ type: "ecr.policies", region, op: "ecr:GetRepositoryPolicy", id: name }, ["RepositoryPolicyNotFoundException"], (o) =>
                    ecr.send(new GetRepositoryPolicyCommand({ repositoryName: name }), o),
                  )
                : Promise.resolve(undefined),
            ])
            return {
              name,
              arn: r.repositoryArn ?? "",
              scanOnPush: r.imageScanningConfiguration?.scanOnPush === true,
              tagMutability: r.imageTagMutability ?? "MUTABLE",
              hasLifecyclePolicy: life === undefined ? undefined : life !== null,
              policy: policy === undefined ? undefined : policy === null ? null : (parsePolicy(policy.policyText) ?? null),
              encryptionType: r.encryptionConfiguration?.encryptionType ?? "AES256",
              kmsKey: r.encryptionConfiguration?.kmsKey || undefined,
              kmsManager: undefined,
            }
          })
    const keys = ctx.wants("ecr.kms") && repositories !== undefined ? await resolveKeyManagers(ctx, region, "ecr.kms", repositories.map((r) => r.kmsKey)) : undefined
    const withKeys = repositories?.map((r) => ({
      ...r,
      kmsManager: r.encryptionType.startsWith("KMS") ? (r.kmsKey === undefined ? ("AWS" as const) : keys?.get(r.kmsKey)) : undefined,
    }))
    ctx.countResources(repositories?.length ?? 0)
    const cfg = registry?.scanningConfiguration
    return {
      region,
      repositories: withKeys,
      registryScanning:
        registry === undefined
          ? undefined
          : {
              type: cfg?.scanType ?? "BASIC",
              coversAll: (cfg?.rules ?? []).some((rule) => (rule.repositoryFilters ?? []).some((f) => f.filter === "*")),
            },
    }
  })
  return { regions }
}
