/**
 * Global setup (runs before global-setup.ts): starts one moto_server as the AWS account of the scanning journeys and
 * exports its URL as AWS_ENDPOINT_URL, which the product started next inherits (server/config.ts reads it; the AWS SDK
 * honours it too). Tests read the endpoint with `inject("motoEndpoint")`. Stopped after the product.
 */
import type { TestProject } from "vitest/node"
import { startMoto, type Moto } from "../../tests/support/moto.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** The moto_server every AWS call of the product goes to. */
    motoEndpoint: string
  }
}

let moto: Moto | undefined

export default async function setup(project: TestProject) {
  moto = await startMoto()
  process.env["AWS_ENDPOINT_URL"] = moto.endpoint
  project.provide("motoEndpoint", moto.endpoint)
  console.log(`e2e: moto_server (AWS) at ${moto.endpoint}`)
  return async () => {
    await moto?.stop()
  }
}
