import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startIdentityEnv, type Env } from "./support.ts"

let env: Env
beforeAll(async () => { env = await startIdentityEnv() })
afterAll(async () => { await env?.stop() })

describe("smoke", () => {
  it("signs up, verifies, signs in", async () => {
    const s = await env.signupVerified()
    const me = await env.call("GET", "/api/user-info", { token: s.access })
    expect(me.status).toBe(200)
    expect(me.body.data.email).toBe(s.email)
    const ws = await env.as(s, "GET", "/api/workspace-info")
    expect(ws.status, JSON.stringify(ws.body)).toBe(200)
  })
})
