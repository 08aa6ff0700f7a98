/** Inventory of platform services, per region: ACM certificates, Backup vaults and plans, CloudFormation stacks, CodeBuild projects, EventBridge buses. */
import { DescribeCertificateCommand, ListCertificatesCommand } from "@aws-sdk/client-acm"
import { ListBackupPlansCommand, ListBackupVaultsCommand } from "@aws-sdk/client-backup"
import { DescribeStacksCommand } from "@aws-sdk/client-cloudformation"
import { BatchGetProjectsCommand, ListProjectsCommand } from "@aws-sdk/client-codebuild"
import { DescribeEventBusCommand, ListEventBusesCommand } from "@aws-sdk/client-eventbridge"
import type { CollectContext } from "../context.ts"
import { listPerRegion, type ItemsInventory } from "./per-region.ts"
import { parsePolicy, type PolicyDocument } from "../policy.ts"

export const acmResourceTypes = ["acm.certificates"] as const
export const backupResourceTypes = ["backup.vaults", "backup.plans"] as const
export const cloudformationResourceTypes = ["cloudformation.stacks"] as const
export const codebuildResourceTypes = ["codebuild.projects"] as const
export const eventbridgeResourceTypes = ["eventbridge.buses"] as const

const SECRET_NAME = /(secret|passw(or)?d|pwd|token|api_?key|private_?key|access_?key|credential)/i

export interface Certificate {
  readonly arn: string
  readonly domain: string
  readonly status: string
  readonly type: string
  readonly notAfter: Date | undefined
  readonly keyAlgorithm: string
  readonly transparencyLogging: boolean
  readonly inUse: boolean
}
export type AcmInventory = ItemsInventory<Certificate>

export async function collectAcm(ctx: CollectContext): Promise<AcmInventory> {
  const inv = await listPerRegion(
    ctx,
    { type: "acm.certificates", op: "acm:ListCertificates" },
    (region, t, o) => ctx.clients.get("acm", region).send(new ListCertificatesCommand({ ...(t === undefined ? {} : { NextToken: t }) }), o),
    (p) => ({ items: p.CertificateSummaryList, next: p.NextToken }),
    async (c, region): Promise<Certificate | undefined> => {
      const arn = c.CertificateArn ?? ""
      const d = (await ctx.call({ type: "acm.certificates", region, op: "acm:DescribeCertificate", id: arn }, (o) => ctx.clients.get("acm", region).send(new DescribeCertificateCommand({ CertificateArn: arn }), o)))?.Certificate
      if (d === undefined) return undefined
      return {
        arn,
        domain: d.DomainName ?? c.DomainName ?? "",
        status: d.Status ?? "",
        type: d.Type ?? "",
        notAfter: d.NotAfter,
        keyAlgorithm: d.KeyAlgorithm ?? "",
        transparencyLogging: d.Options?.CertificateTransparencyLoggingPreference !== "DISABLED",
        inUse: (d.InUseBy ?? []).length > 0,
      }
    },
  )
  return { regions: inv.regions.map((r) => ({ region: r.region, items: r.items?.filter((i): i is Certificate => i !== undefined) })) }
}

export interface BackupRegion {
  readonly region: string
  readonly vaults: ReadonlyArray<{ readonly name: string; readonly kmsKey: string | undefined; readonly locked: boolean; readonly recoveryPoints: number }> | undefined
  readonly plans: number | undefined
}
export interface BackupInventory {
  readonly regions: ReadonlyArray<BackupRegion>
}

export async function collectBackup(ctx: CollectContext): Promise<BackupInventory> {
  const regions = await ctx.perRegion(async (region): Promise<BackupRegion> => {
    const b = ctx.clients.get("backup", region)
    const [vaults, plans] = await Promise.all([
      ctx.wants("backup.vaults")
        ? ctx.paginate(
            { type: "backup.vaults", region, op: "backup:ListBackupVaults" },
            (t, o) => b.send(new ListBackupVaultsCommand({ ...(t === undefined ? {} : { NextToken: t }) }), o),
            (p) => ({ items: p.BackupVaultList, next: p.NextToken }),
          )
        : undefined,
      ctx.wants("backup.plans")
        ? ctx.paginate(
            { type: "backup.plans", region, op: "backup:ListBackupPlans" },
            (t, o) => b.send(new ListBackupPlansCommand({ ...(t === undefined ? {} : { NextToken: t }) }), o),
            (p) => ({ items: p.BackupPlansList, next: p.NextToken }),
          )
        : undefined,
    ])
    ctx.countResources((vaults?.length ?? 0) + (plans?.length ?? 0))
    return {
      region,
      vaults: vaults?.map((v) => ({ name: v.BackupVaultName ?? "", kmsKey: v.EncryptionKeyArn, locked: v.Locked === true, recoveryPoints: v.NumberOfRecoveryPoints ?? 0 })),
      plans: plans?.length,
    }
  })
  return { regions }
}

export interface Stack {
  readonly name: string
  readonly status: string
  readonly terminationProtection: boolean
  readonly notifications: number
  readonly secretOutputs: ReadonlyArray<string>
}
export type CloudFormationInventory = ItemsInventory<Stack>

export async function collectCloudFormation(ctx: CollectContext): Promise<CloudFormationInventory> {
  return listPerRegion(
    ctx,
    { type: "cloudformation.stacks", op: "cloudformation:DescribeStacks" },
    (region, t, o) => ctx.clients.get("cloudformation", region).send(new DescribeStacksCommand({ ...(t === undefined ? {} : { NextToken: t }) }), o),
    (p) => ({ items: p.Stacks, next: p.NextToken }),
    async (s) => ({
      name: s.StackName ?? "",
      status: s.StackStatus ?? "",
      terminationProtection: s.EnableTerminationProtection === true,
      notifications: (s.NotificationARNs ?? []).length,
      secretOutputs: (s.Outputs ?? []).filter((o) => SECRET_NAME.test(o.OutputKey ?? "") && !/^arn:/.test(o.OutputValue ?? "")).map((o) => o.OutputKey ?? ""),
    }),
  )
}

export interface BuildProject {
  readonly name: string
  readonly privileged: boolean
  readonly plaintextSecrets: ReadonlyArray<string>
  readonly logging: boolean
  readonly artifactsEncrypted: boolean
  readonly sourceType: string
}
export type CodeBuildInventory = ItemsInventory<BuildProject>

export async function collectCodeBuild(ctx: CollectContext): Promise<CodeBuildInventory> {
  const regions = await ctx.perRegion(async (region) => {
    const cb = ctx.clients.get("codebuild", region)
    const names = await ctx.paginate(
      { type: "codebuild.projects", region, op: "codebuild:ListProjects" },
      (t, o) => cb.send(new ListProjectsCommand({ ...(t === undefined ? {} : { nextToken: t }) }), o),
      (p) => ({ items: p.projects, next: p.nextToken }),
    )
    if (names === undefined) return { region, items: undefined }
    const batches: string[][] = []
    for (let i = 0; i < names.length; i += 100) batches.push(names.slice(i, i + 100))
    const out = await ctx.map(batches, (batch) => ctx.call({ type: "codebuild.projects", region, op: "codebuild:BatchGetProjects" }, (o) => cb.send(new BatchGetProjectsCommand({ names: batch }), o)))
    if (out.some((o) => o === undefined)) return { region, items: undefined }
    const items = out.flatMap((o) =>
      (o?.projects ?? []).map((p) => ({
        name: p.name ?? "",
        privileged: p.environment?.privilegedMode === true,
        plaintextSecrets: (p.environment?.environmentVariables ?? []).filter((v) => (v.type ?? "PLAINTEXT") === "PLAINTEXT" && SECRET_NAME.test(v.name ?? "")).map((v) => v.name ?? ""),
        logging: p.logsConfig === undefined || p.logsConfig.cloudWatchLogs?.status !== "DISABLED" || p.logsConfig.s3Logs?.status === "ENABLED",
        artifactsEncrypted: p.artifacts?.encryptionDisabled !== true,
        sourceType: p.source?.type ?? "",
      })),
    )
    ctx.countResources(items.length)
    return { region, items }
  })
  return { regions }
}

export interface EventBus {
  readonly name: string
  readonly policy: PolicyDocument | undefined
}
export type EventBridgeInventory = ItemsInventory<EventBus>

export async function collectEventBridge(ctx: CollectContext): Promise<EventBridgeInventory> {
  return listPerRegion(
    ctx,
    { type: "eventbridge.buses", op: "events:ListEventBuses" },
    (region, t, o) => ctx.clients.get("eventbridge", region).send(new ListEventBusesCommand({ ...(t === undefined ? {} : { NextToken: t }) }), o),
    (p) => ({ items: p.EventBuses, next: p.NextToken }),
    async (b, region) => {
      const name = b.Name ?? ""
      const policy = b.Policy ?? (await ctx.call({ type: "eventbridge.buses", region, op: "events:DescribeEventBus", id: name }, (o) => ctx.clients.get("eventbridge", region).send(new DescribeEventBusCommand({ Name: name }), o)))?.Policy
      return { name, policy: parsePolicy(policy) }
    },
  )
}
