/**
 * AWS Organizations discovery (issue 31): with the management (or delegated administrator) account's credentials,
 * DescribeOrganization (the organisation id and its management account), ListRoots, then a walk of the tree —
 * ListOrganizationalUnitsForParent and ListAccountsForParent for each parent, every page — and ListTagsForResource for
 * each account. Member accounts are reached by sts:AssumeRole into the member role with the workspace's external id
 * (`memberAwsCredentials`); `probeAwsMember` checks a member before it is scanned: the role is assumed and reads itself
 * (iam:GetRole, part of SecurityAudit), so a missing role or a role without the audit policy is reported with the
 * provider's words instead of failing every service of a scan.
 *
 * Account state: the documented `State` (PENDING_ACTIVATION, ACTIVE, SUSPENDED, PENDING_CLOSURE, CLOSED) when the API
 * answers it, else the older `Status` (ACTIVE, SUSPENDED, PENDING_CLOSURE): only ACTIVE members are scanned.
 */
import {
  DescribeOrganizationCommand,
  ListAccountsForParentCommand,
  ListOrganizationalUnitsForParentCommand,
  ListRootsCommand,
  ListTagsForResourceCommand,
  type Account as OrgAccount,
} from "@aws-sdk/client-organizations"
import { GetRoleCommand } from "@aws-sdk/client-iam"
import { Effect } from "effect"
import { awsCredentialsInput } from "../accounts/connection-test.ts"
import type { StoredCredentials } from "../accounts/credential-vault.ts"
import { makeAwsClients, type AwsClients } from "../scanner/aws/clients.ts"
import { classifyAwsError } from "../scanner/aws/errors.ts"
import { DiscoveryFailed, type DiscoveredMember, type DiscoveredUnit, type MemberCloudState, type OrganizationDiscovery } from "./discovery.ts"

/** Organizations is a global service answered in us-east-1. */
const ORGANIZATIONS_REGION = "us-east-1"
/** Tag reads in flight at once (Organizations allows a few requests per second per account; the SDK retries throttling). */
const TAG_CONCURRENCY = 4

export interface AwsOrganizationDiscovery extends OrganizationDiscovery {
  /** "o-…" */
  readonly organizationId: string
  readonly managementAccountId: string
}

const failed = (error: unknown, what: string): DiscoveryFailed => {
  const c = classifyAwsError(error)
  if (c.code === "AWSOrganizationsNotInUseException") {
    return new DiscoveryFailed({ reason: "not_found", message: "These credentials' account is not in an AWS Organization" })
  }
  if (c.kind === "access_denied") {
    const reason = ["InvalidClientTokenId", "SignatureDoesNotMatch", "InvalidAccessKeyId", "UnrecognizedClientException", "ExpiredToken"].includes(c.code)
      ? "invalid_credentials"
      : "access_denied"
    return new DiscoveryFailed({ reason, message: `AWS refused ${what} (${c.code}): ${c.message}` })
  }
  return new DiscoveryFailed({ reason: "unreachable", message: `AWS did not answer ${what} (${c.code}): ${c.message}` })
}

const cloudState = (a: OrgAccount): string => String((a as { State?: string }).State ?? a.Status ?? "ACTIVE")

export const awsMemberState = (state: string): MemberCloudState =>
  state === "ACTIVE" ? "active" : state === "PENDING_CLOSURE" || state === "CLOSED" ? "closed" : "suspended"

const clientsFor = (stored: StoredCredentials, endpoint: string | undefined): AwsClients | undefined => {
  const credentials = awsCredentialsInput(stored)
  if (credentials === undefined) return undefined
  return makeAwsClients({
    credentials: { ...credentials, roleSessionName: "cloud-audit-organization" },
    ...(endpoint === undefined ? {} : { endpoint }),
    homeRegion: ORGANIZATIONS_REGION,
    maxAttempts: 5,
    requestTimeoutMs: 30_000,
  })
}

/** Every page of a paged Organizations list. */
const allPages = async <T>(page: (token: string | undefined) => Promise<{ items: ReadonlyArray<T>; next: string | undefined }>): Promise<Array<T>> => {
  const out: Array<T> = []
  let token: string | undefined
  do {
    const answer = await page(token)
    out.push(...answer.items)
    token = answer.next
  } while (token !== undefined && token !== "")
  return out
}

/** Runs `f` over `items`, `limit` at a time, keeping the order. */
export const mapLimit = async <T, R>(items: ReadonlyArray<T>, limit: number, f: (item: T) => Promise<R>): Promise<Array<R>> => {
  const out = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await f(items[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return out
}

export const discoverAws = (stored: StoredCredentials, options: { readonly endpoint: string | undefined }): Effect.Effect<AwsOrganizationDiscovery, DiscoveryFailed> =>
  Effect.gen(function* () {
    const clients = clientsFor(stored, options.endpoint)
    if (clients === undefined) {
      return yield* new DiscoveryFailed({ reason: "invalid_input", message: "Enter the management account's access keys (or set the server's own AWS credentials for a role)" })
    }
    return yield* Effect.tryPromise({
      try: async (signal) => {
        try {
          const org = clients.get("organizations", ORGANIZATIONS_REGION)
          let step = "DescribeOrganization"
          try {
            const described = await org.send(new DescribeOrganizationCommand({}), { abortSignal: signal })
            const organizationId = described.Organization?.Id ?? ""
            const managementAccountId = described.Organization?.MasterAccountId ?? ""
            step = "ListRoots"
            const roots = await allPages(async (NextToken) => {
              const r = await org.send(new ListRootsCommand({ ...(NextToken === undefined ? {} : { NextToken }) }), { abortSignal: signal })
              return { items: r.Roots ?? [], next: r.NextToken }
            })
            const root = roots[0]
            if (root?.Id === undefined) throw Object.assign(new Error("The organisation has no root"), { name: "AWSOrganizationsNotInUseException" })
            const units: Array<DiscoveredUnit> = [{ id: root.Id, parentId: null, name: root.Name ?? "Root", kind: "root" }]
            const accounts: Array<{ account: OrgAccount; unitId: string }> = []
            // Breadth-first: each parent's child units, then its accounts.
            const queue = [root.Id]
            while (queue.length > 0) {
              const parent = queue.shift()!
              step = "ListOrganizationalUnitsForParent"
              const children = await allPages(async (NextToken) => {
                const r = await org.send(
                  new ListOrganizationalUnitsForParentCommand({ ParentId: parent, ...(NextToken === undefined ? {} : { NextToken }) }),
                  { abortSignal: signal },
                )
                return { items: r.OrganizationalUnits ?? [], next: r.NextToken }
              })
              for (const ou of children) {
                if (ou.Id === undefined) continue
                units.push({ id: ou.Id, parentId: parent, name: ou.Name ?? ou.Id, kind: "organizational_unit" })
                queue.push(ou.Id)
              }
              step = "ListAccountsForParent"
              const members = await allPages(async (NextToken) => {
                const r = await org.send(new ListAccountsForParentCommand({ ParentId: parent, ...(NextToken === undefined ? {} : { NextToken }) }), {
                  abortSignal: signal,
                })
                return { items: r.Accounts ?? [], next: r.NextToken }
              })
              for (const account of members) if (account.Id !== undefined) accounts.push({ account, unitId: parent })
            }
            step = "ListTagsForResource"
            const members = await mapLimit(accounts, TAG_CONCURRENCY, async ({ account, unitId }): Promise<DiscoveredMember> => {
              const tags = await allPages(async (NextToken) => {
                const r = await org.send(new ListTagsForResourceCommand({ ResourceId: account.Id!, ...(NextToken === undefined ? {} : { NextToken }) }), {
                  abortSignal: signal,
                })
                return { items: r.Tags ?? [], next: r.NextToken }
              })
              const state = cloudState(account)
              return {
                cloudAccountId: account.Id!,
                name: account.Name ?? account.Id!,
                unitId,
                state: awsMemberState(state),
                cloudState: state,
                tags: Object.fromEntries(tags.flatMap((t) => (t.Key === undefined ? [] : [[t.Key, t.Value ?? ""]]))),
              }
            })
            return { organizationId, managementAccountId, rootId: root.Id, rootName: root.Name ?? "Root", units, members }
          } catch (error) {
            throw failed(error, step)
          }
        } finally {
          clients.destroy()
        }
      },
      catch: (error) => (error instanceof DiscoveryFailed ? error : failed(error, "Organizations")),
    })
  })

/** The member role's ARN in a member account. */
export const memberRoleArn = (cloudAccountId: string, roleName: string): string => `arn:aws:iam::${cloudAccountId}:role/${roleName}`

/**
 * A member's stored credentials: the organisation's own keys (never its role: the member roles trust the principal
 * that signs), the member role and the workspace's external id. Scans assume the role like any role account.
 */
export const memberAwsCredentials = (org: StoredCredentials, cloudAccountId: string, roleName: string, externalId: string): StoredCredentials => {
  const out: StoredCredentials = {}
  if (org.access_key !== undefined) out.access_key = org.access_key
  if (org.secret_key !== undefined) out.secret_key = org.secret_key
  if (org.session_token !== undefined) out.session_token = org.session_token
  out.role_arn = memberRoleArn(cloudAccountId, roleName)
  out.external_id = externalId
  return out
}

/** Whether the member can be audited: the role is assumed and reads itself. Answers the failure text, or undefined. */
export const probeAwsMember = (member: StoredCredentials, options: { readonly endpoint: string | undefined }): Effect.Effect<string | undefined> =>
  Effect.promise(async (signal) => {
    const clients = clientsFor(member, options.endpoint)
    if (clients === undefined) return "No AWS credentials to assume the member role with"
    try {
      const roleName = member.role_arn?.split("/").pop() ?? ""
      await clients.get("iam", ORGANIZATIONS_REGION).send(new GetRoleCommand({ RoleName: roleName }), { abortSignal: signal })
      return undefined
    } catch (error) {
      const c = classifyAwsError(error)
      return `The member role ${member.role_arn ?? ""} could not be used (${c.code}): ${c.message}`
    } finally {
      clients.destroy()
    }
  })
