/** EFS inventory per region: file systems with encryption, backup policy and file system policy. */
import { DescribeBackupPolicyCommand, DescribeFileSystemPolicyCommand, DescribeFileSystemsCommand } from "@aws-sdk/client-efs"
import type { CollectContext } from "../context.ts"
import { parsePolicy, type PolicyDocument } from "../policy.ts"

export const efsResourceTypes = ["efs.file_systems", "efs.backup_policies", "efs.policies"] as const

export interface EfsFileSystem {
  readonly id: string
  readonly arn: string
  readonly name: string | undefined
  readonly encrypted: boolean
  readonly kmsKeyId: string | undefined
  /** "ENABLED", "DISABLED"..., null when no backup policy exists. */
  readonly backup: string | null | undefined
  readonly policy: PolicyDocument | null | undefined
}

export interface EfsInventory {
  readonly regions: ReadonlyArray<{ readonly region: string; readonly fileSystems: ReadonlyArray<EfsFileSystem> | undefined }>
}

export async function collectEfs(ctx: CollectContext): Promise<EfsInventory> {
  const regions = await ctx.perRegion(async (region) => {
    const efs = ctx.clients.get("efs", region)
    const list = await ctx.paginate(
      { type: "efs.file_systems", region, op: "elasticfilesystem:DescribeFileSystems" },
      (m, o) => efs.send(new DescribeFileSystemsCommand({ ...(m === undefined ? {} : { Marker: m }) }), o),
      (p) => ({ items: p.FileSystems, next: p.NextMarker }),
    )
    const fileSystems =
      list === undefined
        ? undefined
        : await ctx.map(list, async (f): Promise<EfsFileSystem> => {
            const id = f.FileSystemId ?? ""
            const [backup, policy] = await Promise.all([
              ctx.wants("efs.backup_policies")
                ? ctx.optional({ type: "efs.backup_policies", region, op: "elasticfilesystem:DescribeBackupPolicy", id }, ["PolicyNotFound"], (o) =>
                    efs.send(new DescribeBackupPolicyCommand({ FileSystemId: id }), o),
                  )
                : Promise.resolve(undefined),
              ctx.wants("efs.policies")
                ? ctx.optional({ type: "efs.policies", region, op: "elasticfilesystem:DescribeFileSystemPolicy", id }, ["PolicyNotFound"], (o) =>
                    efs.send(new DescribeFileSystemPolicyCommand({ FileSystemId: id }), o),
                  )
                : Promise.resolve(undefined),
            ])
            return {
              id,
              arn: f.FileSystemArn ?? "",
              name: f.Name,
              encrypted: f.Encrypted === true,
              kmsKeyId: f.KmsKeyId,
              backup: backup === undefined ? undefined : backup === null ? null : (backup.BackupPolicy?.Status ?? null),
              policy: policy === undefined ? undefined : policy === null ? null : (parsePolicy(policy.Policy) ?? null),
            }
          })
    ctx.countResources(fileSystems?.length ?? 0)
    return { region, fileSystems }
  })
  return { regions }
}
