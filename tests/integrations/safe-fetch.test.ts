/**
 * The outbound client's SSRF guard (server/integrations/safe-fetch.ts): which addresses are refused, that a refused
 * target is never connected to, that the connection goes to the address that was checked (DNS rebinding), that every
 * redirect hop is checked again, and the limits (redirects, size, time). Local servers listen on 127.0.0.1 and
 * 127.0.0.2 and count what reaches them; where a test needs a "public" first hop it stands 127.0.0.1 in for one and
 * keeps the product's rule for every other address.
 */
// @vitest-environment node
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import {
  checkTargetUrl,
  OutboundRequestFailed,
  refusalFor,
  type Resolver,
  safeFetch,
} from "../../server/integrations/safe-fetch.ts"

interface Recorded {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

const servers: Array<Server> = []
const start = async (host: string, handler: (req: IncomingMessage, res: ServerResponse, body: string) => void) => {
  const hits: Array<Recorded> = []
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8")
      hits.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body })
      handler(req, res, body)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  servers.push(server)
  return { hits, port: (server.address() as AddressInfo).port }
}
afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections()
    await new Promise((resolve) => s.close(resolve))
  }
})

const savedEnv = process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS
beforeAll(() => {
  delete process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS
})
afterEach(() => {
  delete process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS
})
afterAll(() => {
  if (savedEnv !== undefined) process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS = savedEnv
})

/** 127.0.0.1 stands in for a public host; every other address meets the product's rule. */
const loopbackIsPublic = (address: string) => (address === "127.0.0.1" ? undefined : refusalFor(address))

const failure = async (promise: Promise<unknown>): Promise<OutboundRequestFailed> => {
  try {
    await promise
  } catch (error) {
    if (error instanceof OutboundRequestFailed) return error
    throw error
  }
  throw new Error("expected the request to fail")
}

const fixed = (answers: Record<string, ReadonlyArray<string>>): Resolver & { calls: Array<string> } => {
  const calls: Array<string> = []
  const resolver = async (hostname: string) => {
    calls.push(hostname)
    const list = answers[hostname]
    if (list === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" })
    return list.map((address) => ({ address, family: (address.includes(":") ? 6 : 4) as 4 | 6 }))
  }
  return Object.assign(resolver, { calls })
}

describe("the address rule", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.200.3.4", "loopback"],
    ["10.0.0.5", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.127.255.254", "carrier-grade NAT"],
    ["0.0.0.0", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["::ffff:127.0.0.1", "IPv4-mapped form of 127.0.0.1, a loopback"],
    ["::ffff:7f00:1", "IPv4-mapped form of 127.0.0.1"],
    ["::ffff:a9fe:a9fe", "IPv4-mapped form of 169.254.169.254, a link-local"],
    ["::10.0.0.1", "IPv4-compatible form of 10.0.0.1"],
    ["64:ff9b::a00:1", "NAT64 form of 10.0.0.1"],
    ["2002:a9fe:a9fe::1", "6to4 form of 169.254.169.254"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf:ffff::1", "link-local"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["ff02::1", "multicast"],
  ])("refuses %s (%s)", (address, words) => {
    expect(refusalFor(address)).toContain(words)
  })

  it.each(["8.8.8.8", "1.1.1.1", "172.32.0.1", "172.15.255.255", "100.128.0.1", "192.169.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "2002:808:808::1"])(
    "lets %s through",
    (address) => {
      expect(refusalFor(address)).toBeUndefined()
    },
  )
})

describe("refused targets are never connected to", () => {
  it("refuses loopback, private and link-local literals, in every spelling the URL parser accepts", async () => {
    const server = await start("127.0.0.1", (_req, res) => res.end("reached"))
    for (const target of [
      `http://127.0.0.1:${server.port}/hook`,
      `http://2130706433:${server.port}/hook`,
      `http://0x7f.1:${server.port}/hook`,
      `http://[::ffff:127.0.0.1]:${server.port}/hook`,
      `http://[::1]:${server.port}/hook`,
      "http://10.1.2.3/hook",
      "http://169.254.169.254/latest/meta-data/",
      "http://[fe80::1]/hook",
      "http://100.64.0.1/hook",
    ]) {
      const error = await failure(safeFetch(target, { method: "POST", body: "{}" }))
      expect(error.reason, target).toBe("refused_address")
      expect(error.message).toContain("INTEGRATIONS_ALLOW_PRIVATE_TARGETS=1")
    }
    expect(server.hits).toHaveLength(0)
  })

  it("refuses a name that resolves to a private address, and a name with one private address among public ones", async () => {
    const resolve = fixed({ "hooks.example.test": ["10.0.0.5"], "mixed.example.test": ["8.8.8.8", "127.0.0.1"] })
    const one = await failure(safeFetch("https://hooks.example.test/in", { resolve }))
    expect(one.reason).toBe("refused_address")
    expect(one.message).toBe(
      "https://hooks.example.test/in resolves to 10.0.0.5, a private network address (10.0.0.0/8): requests to loopback, private, link-local and other non-public addresses are refused (an operator can allow them with INTEGRATIONS_ALLOW_PRIVATE_TARGETS=1)",
    )
    const mixed = await failure(safeFetch("https://mixed.example.test/in", { resolve }))
    expect(mixed.message).toContain("resolves to 127.0.0.1, a loopback address")
  })

  it("refuses localhost through the system resolver", async () => {
    const error = await failure(safeFetch("http://localhost:9/hook"))
    expect(error.reason).toBe("refused_address")
    expect(error.message).toMatch(/resolves to (127\.0\.0\.1|::1), a loopback address/)
  })

  it("names a host that does not resolve", async () => {
    const error = await failure(safeFetch("https://nowhere.example.test/", { resolve: fixed({}) }))
    expect(error.reason).toBe("dns")
    expect(error.message).toBe("nowhere.example.test (in https://nowhere.example.test/) does not resolve to any address")
  })

  it("refuses other schemes even when private targets are allowed", async () => {
    process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS = "1"
    const error = await failure(safeFetch("file:///etc/passwd"))
    expect(error.reason).toBe("invalid_url")
    expect(error.message).toBe("file:///etc/passwd uses file: only http and https URLs can be called")
  })
})

describe("DNS rebinding", () => {
  it("connects to the address that was checked, never to a second answer", async () => {
    const server = await start("127.0.0.1", (_req, res) => res.end("loopback reached"))
    // First answer: a public address (TEST-NET-3, routes nowhere here); any later answer: loopback.
    let answered = 0
    const calls: Array<string> = []
    const rebinding: Resolver = async (hostname) => {
      calls.push(hostname)
      return [{ address: answered++ === 0 ? "203.0.113.7" : "127.0.0.1", family: 4 }]
    }
    const error = await failure(safeFetch(`http://rebind.example.test:${server.port}/hook`, { resolve: rebinding, timeoutMs: 1500 }))
    expect(["timeout", "network"]).toContain(error.reason)
    expect(calls).toEqual(["rebind.example.test"])
    expect(server.hits).toHaveLength(0)
  })

  it("a name whose first answer is checked and passes is reached at that address, whatever DNS says next", async () => {
    const server = await start("127.0.0.1", (_req, res) => res.end("hello"))
    let answered = 0
    const rebinding: Resolver = async () => [{ address: answered++ === 0 ? "127.0.0.1" : "10.9.9.9", family: 4 }]
    const response = await safeFetch(`http://pinned.example.test:${server.port}/hook`, { resolve: rebinding, refuseAddress: loopbackIsPublic })
    expect(response.status).toBe(200)
    expect(response.text()).toBe("hello")
    expect(response.address).toBe("127.0.0.1")
    expect(answered).toBe(1)
    // The Host header names the URL's host, not the address.
    expect(server.hits[0]?.headers.host).toBe(`pinned.example.test:${server.port}`)
  })
})

describe("redirects", () => {
  it("checks every hop: a redirect to a private, link-local or loopback address is refused and never followed", async () => {
    const inner = await start("127.0.0.2", (_req, res) => res.end("internal"))
    const targets: Record<string, string> = {
      "/to-metadata": "http://169.254.169.254/latest/meta-data/iam/",
      "/to-loopback": `http://127.0.0.2:${inner.port}/admin`,
      "/to-name": `http://intranet.example.test:${inner.port}/admin`,
      "/to-mapped": `http://[::ffff:10.0.0.1]/`,
    }
    const outer = await start("127.0.0.1", (req, res) => {
      res.writeHead(302, { location: targets[req.url ?? ""] ?? "/" })
      res.end()
    })
    const resolve = fixed({ "intranet.example.test": ["192.168.10.20"] })
    for (const [path, words] of [
      ["/to-metadata", "http://169.254.169.254/latest/meta-data/iam/ is a link-local address (169.254.0.0/16)"],
      ["/to-loopback", `http://127.0.0.2:${inner.port}/admin is a loopback address (127.0.0.0/8)`],
      ["/to-name", "resolves to 192.168.10.20, a private network address (192.168.0.0/16)"],
      ["/to-mapped", "an IPv4-mapped form of 10.0.0.1, a private network address"],
    ] as const) {
      const error = await failure(safeFetch(`http://127.0.0.1:${outer.port}${path}`, { method: "POST", body: "{}", resolve, refuseAddress: loopbackIsPublic }))
      expect(error.reason, path).toBe("refused_address")
      expect(error.message).toContain(words)
    }
    expect(outer.hits).toHaveLength(4)
    expect(inner.hits).toHaveLength(0)
  })

  it("follows allowed redirects: 307 keeps the POST and its body, 303 continues as GET, a cross-origin hop drops Authorization", async () => {
    const second = await start("127.0.0.1", (_req, res) => res.end("final"))
    const first = await start("127.0.0.1", (req, res) => {
      if (req.url === "/keep") res.writeHead(307, { location: "/landed" }).end()
      else if (req.url === "/see-other") res.writeHead(303, { location: `http://127.0.0.1:${second.port}/elsewhere` }).end()
      else res.end("landed")
    })
    const kept = await safeFetch(`http://user:pa%20ss@127.0.0.1:${first.port}/keep`, { method: "POST", body: "payload", refuseAddress: loopbackIsPublic })
    expect(kept.text()).toBe("landed")
    expect(kept.redirects).toEqual([`http://127.0.0.1:${first.port}/landed`])
    expect(first.hits.map((h) => [h.method, h.url, h.body])).toEqual([["POST", "/keep", "payload"], ["POST", "/landed", "payload"]])
    expect(first.hits[1]?.headers.authorization).toBe(`Basic ${Buffer.from("user:pa ss").toString("base64")}`)

    const seen = await safeFetch(`http://user:pw@127.0.0.1:${first.port}/see-other`, { method: "POST", body: "payload", refuseAddress: loopbackIsPublic })
    expect(seen.text()).toBe("final")
    expect(second.hits.map((h) => [h.method, h.body, h.headers.authorization])).toEqual([["GET", "", undefined]])
  })

  it("stops after the redirect limit", async () => {
    const loop = await start("127.0.0.1", (req, res) => res.writeHead(302, { location: `/again${req.url}` }).end())
    const error = await failure(safeFetch(`http://127.0.0.1:${loop.port}/`, { maxRedirects: 2, refuseAddress: loopbackIsPublic }))
    expect(error.reason).toBe("too_many_redirects")
    expect(error.message).toBe(`http://127.0.0.1:${loop.port}/again/ redirected more than 2 times`)
    expect(loop.hits).toHaveLength(3)
  })
})

describe("limits", () => {
  it("cuts off a response larger than the cap", async () => {
    const big = await start("127.0.0.1", (_req, res) => {
      res.write(Buffer.alloc(64 * 1024, 97))
      res.end(Buffer.alloc(64 * 1024, 97))
    })
    const error = await failure(safeFetch(`http://127.0.0.1:${big.port}/`, { maxResponseBytes: 100_000, refuseAddress: loopbackIsPublic }))
    expect(error.reason).toBe("too_large")
    expect(error.message).toContain("more than the 100000 bytes read")
  })

  it("gives up on a target that never answers, within the deadline", async () => {
    const silent = await start("127.0.0.1", () => undefined)
    const started = Date.now()
    const error = await failure(safeFetch(`http://127.0.0.1:${silent.port}/`, { timeoutMs: 400, refuseAddress: loopbackIsPublic }))
    expect(error.reason).toBe("timeout")
    expect(error.message).toBe(`http://127.0.0.1:${silent.port}/ did not answer within 0.4 s`)
    expect(Date.now() - started).toBeLessThan(3000)
  })

  it("names a refused connection", async () => {
    const error = await failure(safeFetch("http://127.0.0.1:9/", { refuseAddress: loopbackIsPublic }))
    expect(error.reason).toBe("network")
    expect(error.message).toBe("http://127.0.0.1:9/ refused the connection")
  })
})

describe("INTEGRATIONS_ALLOW_PRIVATE_TARGETS=1", () => {
  it("lifts the address refusal only", async () => {
    const server = await start("127.0.0.1", (_req, res) => res.end("ok"))
    await expect(checkTargetUrl(`http://127.0.0.1:${server.port}/`)).rejects.toBeInstanceOf(OutboundRequestFailed)
    process.env.INTEGRATIONS_ALLOW_PRIVATE_TARGETS = "1"
    expect(await checkTargetUrl(`http://127.0.0.1:${server.port}/`)).toEqual({ address: "127.0.0.1", family: 4 })
    const response = await safeFetch(`http://127.0.0.1:${server.port}/`)
    expect(response.status).toBe(200)
    const loop = await start("127.0.0.1", (_req, res) => res.writeHead(302, { location: "/x" }).end())
    expect((await failure(safeFetch(`http://127.0.0.1:${loop.port}/`, { maxRedirects: 1 }))).reason).toBe("too_many_redirects")
  })
})
