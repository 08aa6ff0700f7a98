/**
 * Slow clients are cut off (issue 27, item 8): headers that never finish and a body that never arrives used to hold a
 * connection for 73 s and 313 s (Node's defaults). With HTTP_HEADERS_TIMEOUT_SECONDS=1 and
 * HTTP_REQUEST_TIMEOUT_SECONDS=2 (the production defaults are 10 and 30), a raw socket that stops half-way through
 * its headers, trickles them, or stops half-way through its body gets a 408 with the catalogue's body and the
 * connection is closed; complete requests on the same server are answered as usual.
 */
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PlatformMessages } from "../../src/contracts/messages.ts"
import { startTestServer, type TestServer } from "../support/server.ts"

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ env: { HTTP_HEADERS_TIMEOUT_SECONDS: "1", HTTP_REQUEST_TIMEOUT_SECONDS: "2" } })
}, 60_000)
afterAll(async () => {
  await server?.stop()
})

interface Outcome {
  readonly status: number
  readonly body: string
  /** Milliseconds from connecting to the server closing the connection. */
  readonly closedAfter: number
}

/**
 * Opens a raw connection, writes `parts` (a number = pause that many ms) and waits for the server to close it (at
 * most `limitMs`, then the test fails with what it got).
 */
const exchange = (parts: ReadonlyArray<string | number>, limitMs = 15_000): Promise<Outcome> =>
  new Promise((resolve, reject) => {
    const url = new URL(server.baseUrl)
    const started = Date.now()
    const socket = connect(Number(url.port), url.hostname)
    const chunks: Array<Buffer> = []
    const limit = setTimeout(() => {
      socket.destroy()
      reject(new Error(`the server kept the connection open for ${limitMs} ms; received ${JSON.stringify(Buffer.concat(chunks).toString("utf8").slice(0, 200))}`))
    }, limitMs)
    socket.on("data", (c) => chunks.push(c))
    socket.on("error", () => undefined)
    socket.on("close", () => {
      clearTimeout(limit)
      const text = Buffer.concat(chunks).toString("utf8")
      const [head = "", ...rest] = text.split("\r\n\r\n")
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), body: rest.join("\r\n\r\n"), closedAfter: Date.now() - started })
    })
    socket.on("connect", async () => {
      for (const part of parts) {
        if (socket.destroyed) return
        if (typeof part === "number") await new Promise((r) => setTimeout(r, part))
        else socket.write(part)
      }
    })
  })

const expect408 = (o: Outcome) => {
  expect(o.status, o.body).toBe(408)
  expect(JSON.parse(o.body)).toMatchObject({ _tag: "ValidationError", message: PlatformMessages.requestTimedOut })
}

describe("slow clients", () => {
  it("headers that never finish: 408 and the connection closed after the headers timeout", async () => {
    const o = await exchange(["GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: "])
    expect408(o)
    expect(o.closedAfter).toBeGreaterThanOrEqual(900)
  })

  it("headers trickled a byte at a time: the timeout counts from the first byte, not from the last", async () => {
    const header = "GET /api/health HTTP/1.1\r\nHost: x\r\nX-Trickle: abcdefghijklmnopqrstuvwxyz\r\n"
    const o = await exchange(header.split("").flatMap((c) => [c, 150]))
    expect408(o)
  })

  it("a body that never arrives: 408 and the connection closed after the request timeout", async () => {
    const o = await exchange([
      "POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n",
      "{\"email\":\"slow@example.com\",",
    ])
    expect408(o)
    expect(o.closedAfter).toBeGreaterThanOrEqual(1_900)
  })

  it("a body trickled slowly past the request timeout is cut off too", async () => {
    const parts: Array<string | number> = ["POST /api/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 60\r\n\r\n"]
    for (let i = 0; i < 40; i++) parts.push(" ", 200)
    expect408(await exchange(parts))
  })

  it("complete requests are answered as usual", async () => {
    const o = await exchange(["GET /api/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"])
    expect(o.status).toBe(200)
    const res = await fetch(`${server.baseUrl}/api/health`)
    expect(res.status).toBe(200)
  })
})
