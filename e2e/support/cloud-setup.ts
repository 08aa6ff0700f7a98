/**
 * Global setup (runs before global-setup.ts): the GCP project and the Azure subscription of the GCP / Azure journeys.
 * One loopback fixture server per provider (tests/support/cloud-fixture-server.ts) speaks the real wire formats —
 * OAuth JWT-bearer token endpoint checking the RS256 signature, Entra client-credentials, the Google and ARM/Graph REST
 * APIs — seeded with the insecure worlds of the engine tests, where a few services are set up right (so a scan has
 * passed findings as well as failed ones). Their origins go out as GCP_ENDPOINT_URL /
 * AZURE_ENDPOINT_URL, which the product started next inherits (every Google / Azure endpoint, token endpoints included).
 *
 * The worlds live in this (main) process; test files run in workers, so they get the credentials through `inject` and
 * read the cloud state over HTTP: GET `${cloudControlUrl}/gcp/buckets/{project}` and
 * `${cloudControlUrl}/azure/storage/{subscription}` answer the resources as the fake cloud holds them now (what a
 * remediation changed). Stopped after the product.
 */
import type { TestProject } from "vitest/node"
import { startCloudFixtureServer, type CloudFixtureServer } from "../../tests/support/cloud-fixture-server.ts"
import { HARDENED, hardenedSubscription, INSECURE, insecureSubscription, insecureTenant } from "../../tests/scanner-azure/azure-fixtures.ts"
import { installAzureWorld, newAzureWorld, type AzureSubscription } from "../../tests/scanner-azure/azure-world.ts"
import { hardenedProject, insecureProject } from "../../tests/scanner-gcp/gcp-fixtures.ts"
import { addServiceAccount, installGcpWorld, newGcpWorld, type GcpProjectState } from "../../tests/scanner-gcp/gcp-world.ts"

export interface AzureJourneyCredentials {
  readonly tenantId: string
  readonly clientId: string
  readonly clientSecret: string
  readonly subscriptionId: string
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The key file of the GCP journey's service account, as Google hands it out (pretty-printed JSON, fresh RSA key). */
    gcpServiceAccountKey: string
    /** A well-formed key of a service account that no longer exists (the token endpoint refuses it). */
    gcpDeletedServiceAccountKey: string
    /** The project the key's service account audits. */
    gcpProjectId: string
    /** The Azure journey's app registration and subscription. */
    azureCredentials: AzureJourneyCredentials
    /** Read-only view of the fake clouds' state (see the module comment). */
    cloudControlUrl: string
  }
}

const CONTROL_HOST = "e2e-control"

/** Wire-shaped JSON copied from one project / subscription to another (ids and names embed the owner's id). */
const moved = <T,>(value: T, from: string, to: string): T => JSON.parse(JSON.stringify(value).replaceAll(from, to)) as T

/** The insecure project, except that its BigQuery datasets and Dataproc clusters are the hardened project's. */
function journeyProject(): GcpProjectState {
  const insecure = insecureProject()
  const hardened = hardenedProject()
  return {
    ...insecure,
    datasets: moved(hardened.datasets, hardened.projectId, insecure.projectId),
    dataprocClusters: moved(hardened.dataprocClusters, hardened.projectId, insecure.projectId),
  }
}

/** The insecure subscription, except that its Cosmos DB accounts are the hardened subscription's. */
function journeySubscription(): AzureSubscription {
  const subscription = insecureSubscription()
  const isCosmos = (id: string) => id.toLowerCase().includes("/providers/microsoft.documentdb/")
  for (const id of [...subscription.resources.keys()]) if (isCosmos(id)) subscription.resources.delete(id)
  for (const [id, resource] of hardenedSubscription().resources) {
    if (!isCosmos(id)) continue
    const copy = moved(resource, HARDENED.subscriptionId, subscription.subscriptionId)
    subscription.resources.set(String(copy["id"]).toLowerCase(), copy)
  }
  return subscription
}
let gcp: CloudFixtureServer | undefined
let azure: CloudFixtureServer | undefined

export default async function setup(project: TestProject) {
  gcp = await startCloudFixtureServer()
  const gcpWorld = newGcpWorld(50)
  installGcpWorld(gcp, gcpWorld)
  const gcpProject = journeyProject()
  gcpWorld.projects.set(gcpProject.projectId, gcpProject)
  // The e-mail's domain names the key's project_id: the project the account audits.
  const scanner = addServiceAccount(gcpWorld, gcp, `scanner@${gcpProject.projectId}.iam.gserviceaccount.com`)
  const deleted = addServiceAccount(gcpWorld, gcp, `deleted@${gcpProject.projectId}.iam.gserviceaccount.com`)
  gcpWorld.accounts.delete(deleted.email)
  gcp.route("GET", CONTROL_HOST, /^\/gcp\/buckets\/([^/]+)$/, (_req, m) => {
    const state = gcpWorld.projects.get(m[1]!)
    return state === undefined ? { status: 404, body: { error: `no project ${m[1]}` } } : { body: state.buckets.map((b) => b.bucket) }
  })

  azure = await startCloudFixtureServer()
  const azureWorld = newAzureWorld(50)
  installAzureWorld(azure, azureWorld)
  const tenant = insecureTenant()
  azureWorld.tenants.set(tenant.tenantId, tenant)
  const subscription = journeySubscription()
  azureWorld.subscriptions.set(subscription.subscriptionId, subscription)
  // The control view of Azure is served by the GCP server too: one URL for the tests.
  gcp.route("GET", CONTROL_HOST, /^\/azure\/storage\/([^/]+)$/, (_req, m) => {
    const sub = azureWorld.subscriptions.get(m[1]!)
    if (sub === undefined) return { status: 404, body: { error: `no subscription ${m[1]}` } }
    const accounts = [...sub.resources.values()].filter((r) => String(r["type"]).toLowerCase() === "microsoft.storage/storageaccounts")
    return { body: accounts }
  })

  process.env["GCP_ENDPOINT_URL"] = gcp.origin
  process.env["AZURE_ENDPOINT_URL"] = azure.origin
  // A customer pastes the downloaded key file: pretty-printed, the PEM's line breaks escaped inside the string.
  project.provide("gcpServiceAccountKey", JSON.stringify(JSON.parse(scanner.keyJson), null, 2))
  project.provide("gcpDeletedServiceAccountKey", JSON.stringify(JSON.parse(deleted.keyJson), null, 2))
  project.provide("gcpProjectId", gcpProject.projectId)
  project.provide("azureCredentials", {
    tenantId: INSECURE.tenantId,
    clientId: INSECURE.clientId,
    clientSecret: INSECURE.secret,
    subscriptionId: INSECURE.subscriptionId,
  })
  project.provide("cloudControlUrl", gcp.base(CONTROL_HOST))
  console.log(`e2e: fake Google Cloud at ${gcp.origin}, fake Azure at ${azure.origin}`)
  return async () => {
    delete process.env["GCP_ENDPOINT_URL"]
    delete process.env["AZURE_ENDPOINT_URL"]
    await gcp?.close()
    await azure?.close()
  }
}
