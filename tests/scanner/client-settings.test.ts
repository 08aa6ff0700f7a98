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

  it.each([
    { env: { AWS_USE_FIPS_ENDPOINT: "true", AWS_USE_DUALSTACK_ENDPOINT: "TRUE" }, name: "kms", region: "us-east-1", fips: true, dual: true, host: "kms-fips.us-east-1.api.aws" },
    // Anything but "true" (any case) is off, as the SDK reads these variables.
    { env: { AWS_USE_FIPS_ENDPOINT: "yes", AWS_USE_DUALSTACK_ENDPOINT: "false" }, name: "ec2", region: "us-west-2", fips: false, dual: false, host: "ec2.us-west-2.amazonaws.com" },
  ] as const)("keep AWS_USE_FIPS_ENDPOINT and AWS_USE_DUALSTACK_ENDPOINT as AWS documents them: $env", async ({ env, name, region, fips, dual, host }) => {
    const { makeAwsClients } = await freshClients(env)
    const clients = makeAwsClients({ credentials })
    const client = clients.get(name, region)
    expect(await client.config.useFipsEndpoint()).toBe(fips)
    expect(await client.config.useDualstackEndpoint()).toBe(dual)
    expect(await endpointOf(client as never)).toBe(host)
    clients.destroy()
  })
})
