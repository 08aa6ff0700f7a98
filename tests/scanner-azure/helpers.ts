/** Azure test harness: the fixture server with the fake Azure, the two tenants, and scan helpers. */
import type { AzureCredentialsInput } from "../../server/scanner/azure/auth.ts"
import { azureEndpointsAt } from "../../server/scanner/azure/endpoints.ts"
import { scanAzureService, type AzureScanInput, type AzureScanResult } from "../../server/scanner/azure/scan-service.ts"
import { startCloudFixtureServer, type CloudFixtureServer } from "../support/cloud-fixture-server.ts"
import { assertLabelled } from "../scanner-gcp/helpers.ts"
import { HARDENED, INSECURE, NOW } from "./azure-fixtures.ts"
import { installAzureWorld, newAzureWorld, type AzureSubscription, type AzureTenant, type AzureWorld } from "./azure-world.ts"

export interface AzureFixture {
  readonly server: CloudFixtureServer
  readonly world: AzureWorld
  credentialsFor(subscriptionId: string): AzureCredentialsInput
  scan(subscriptionId: string, service: string, options?: Partial<AzureScanInput>): Promise<AzureScanResult>
  close(): Promise<void>
}

export async function startAzureFixture(tenants: ReadonlyArray<AzureTenant>, subscriptions: ReadonlyArray<AzureSubscription>, pageSize = 2): Promise<AzureFixture> {
  const server = await startCloudFixtureServer()
  const world = newAzureWorld(pageSize)
  installAzureWorld(server, world)
  for (const t of tenants) world.tenants.set(t.tenantId, t)
  for (const s of subscriptions) world.subscriptions.set(s.subscriptionId, s)
  const credentialsFor = (subscriptionId: string): AzureCredentialsInput => {
    const sub = world.subscriptions.get(subscriptionId)
    const ids = sub?.tenantId === INSECURE.tenantId ? INSECURE : HARDENED
    return { tenantId: sub?.tenantId ?? ids.tenantId, clientId: ids.clientId, clientSecret: ids.secret, subscriptionId }
  }
  return {
    server,
    world,
    credentialsFor,
    scan: async (subscriptionId, service, options = {}) => {
      const result = await scanAzureService({
        credentials: credentialsFor(subscriptionId),
        service,
        endpoints: azureEndpointsAt(server.origin),
        now: NOW,
        maxAttempts: 3,
        maxRetryDelayMs: 2_000,
        ...options,
      })
      assertLabelled(result.findings)
      return result
    },
    close: () => server.close(),
  }
}
