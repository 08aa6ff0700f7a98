/**
 * The SDK settings the scanner's clients get once per process (server/scanner/aws/clients.ts `processSettings`)
 * instead of each client resolving them from the environment and ~/.aws/config: the environment keeps its documented
 * meaning (AWS_USE_FIPS_ENDPOINT, AWS_USE_DUALSTACK_ENDPOINT), and the endpoints a client resolves are the ones AWS
 * documents for those settings.
 */
import { afterEach, describe, expect, it, vi } from "vitest"

const credentials = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "example-secret" }
const saved = { fips: process.env["AWS_USE_FIPS_ENDPOINT"], dual: process.env["AWS_USE_DUALSTACK_ENDPOINT"], endpoint: process.env["AWS_ENDPOINT_URL"] }

const restore = (name: string, value: string | undefined) => {
  if (value === undefined) delete process.env[name]
  else process.env[name] = value
}

afterEach(() => {
  restore("AWS_USE_FIPS_ENDPOINT", saved.fips)
  restore("AWS_USE_DUALSTACK_ENDPOINT", saved.dual)
  restore("AWS_ENDPOINT_URL", saved.endpoint)
  vi.resetModules()
})

/** A fresh copy of clients.ts (its settings are resolved once per module instance), with this environment. */
const freshClients = async (env: Record<string, string | undefined>) => {
  for (const [name, value] of Object.entries(env)) restore(name, value)
  delete process.env["AWS_ENDPOINT_URL"]
  vi.resetModules()
  return import("../../server/scanner/aws/clients.ts")
}

/** The URL the client's own endpoint rules give for a call in its region. */
const endpointOf = async (client: { config: { endpointProvider: (p: Record<string, unknown>) => { url: URL }; region: () => Promise<string>; useFipsEndpoint: () => Promise<boolean>; useDualstackEndpoint: () => Promise<boolean> } }) =>
  client.config.endpointProvider({
    Region: await client.config.region(),
    UseFIPS: await client.config.useFipsEndpoint(),
    UseDualStack: await client.config.useDualstackEndpoint(),
  }).url.host

describe("scanner client settings", () => {
  it("are resolved once per process and given to every client", async () => {
    const { makeAwsClients, processSettings } = await freshClients({ AWS_USE_FIPS_ENDPOINT: undefined, AWS_USE_DUALSTACK_ENDPOINT: undefined })
    expect(processSettings()).toBe(processSettings())
    const clients = makeAwsClients({ credentials })
    const sqs = clients.get("sqs", "eu-west-1")
    expect(await sqs.config.useFipsEndpoint()).toBe(false)
    expect(await sqs.config.useDualstackEndpoint()).toBe(false)
    expect(await sqs.config.userAgentAppId()).toBe("cloud-audit-scanner")
    expect(await endpointOf(sqs as never)).toBe("sqs.eu-west-1.amazonaws.com")
    clients.destroy()
  })

  it("keep AWS_USE_FIPS_ENDPOINT and AWS_USE_DUALSTACK_ENDPOINT as AWS documents them", async () => {
    const { makeAwsClients } = await freshClients({ AWS_USE_FIPS_ENDPOINT: "true", AWS_USE_DUALSTACK_ENDPOINT: "TRUE" })
    const clients = makeAwsClients({ credentials })
    const kms = clients.get("kms", "us-east-1")
    expect(await kms.config.useFipsEndpoint()).toBe(true)
    expect(await kms.config.useDualstackEndpoint()).toBe(true)
    expect(await endpointOf(kms as never)).toBe("kms-fips.us-east-1.api.aws")
    clients.destroy()
  })

  it("read anything but \"true\" as off", async () => {
    const { makeAwsClients } = await freshClients({ AWS_USE_FIPS_ENDPOINT: "yes", AWS_USE_DUALSTACK_ENDPOINT: "false" })
    const clients = makeAwsClients({ credentials })
    const ec2 = clients.get("ec2", "us-west-2")
    expect(await ec2.config.useFipsEndpoint()).toBe(false)
    expect(await endpointOf(ec2 as never)).toBe("ec2.us-west-2.amazonaws.com")
    clients.destroy()
  })
})
