/**
 * Starts the product the way a newcomer does (`node server/main.ts start`: builds the SPA if needed, embedded database,
 * API and worker in one process) on a free port with a fresh DATA_DIR, waits for /api/health, and hands the base URL to
 * the tests. Stops it with SIGTERM afterwards (the graceful path is part of what is tested).
 */
import { spawn, type ChildProcess } from "node:child_process"
import { createServer as createHttpServer, type Server } from "node:http"
import { mkdtempSync, mkdirSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"
import { startSmtpCapture, type SmtpCapture } from "../../tests/support/smtp.ts"

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string
    /** GET → every mail the product sent so far (JSON array of CapturedMail), captured by a real SMTP server. */
    mailboxUrl: string
  }
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer()
    srv.once("error", reject)
    srv.listen(0, "127.0.0.1", () => {
      const address = srv.address()
      const port = typeof address === "object" && address ? address.port : 0
      srv.close(() => resolve(port))
    })
  })

let child: ChildProcess | undefined
let dataDir: string | undefined
let smtp: SmtpCapture | undefined
let mailbox: Server | undefined

export default async function setup(project: TestProject) {
  mkdirSync("e2e/artifacts", { recursive: true })
  const port = await freePort()
  dataDir = mkdtempSync(join(tmpdir(), "e2e-data-"))
  const baseUrl = `http://127.0.0.1:${port}`
  // Real SMTP: the product sends through nodemailer to a capturing smtp-server; tests read the mails over HTTP
  // (test files run in workers, so they cannot share the capture's memory).
  smtp = await startSmtpCapture()
  const capture = smtp
  mailbox = createHttpServer((_req, res) => {
    res.setHeader("content-type", "application/json")
    res.end(JSON.stringify(capture.mails))
  })
  const mailboxPort = await new Promise<number>((resolve) => {
    mailbox?.listen(0, "127.0.0.1", () => {
      const a = mailbox?.address()
      resolve(typeof a === "object" && a ? a.port : 0)
    })
  })
  const started = Date.now()
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    DATA_DIR: dataDir,
    APP_ORIGIN: baseUrl,
    NODE_ENV: "development",
    SMTP_URL: smtp.url,
    // The identity providers and integration targets the tests start listen on 127.0.0.1 (docs/sso.md).
    INTEGRATIONS_ALLOW_PRIVATE_TARGETS: "1",
  }
  delete env.DATABASE_URL
  child = spawn(process.execPath, ["server/main.ts", "start"], { env, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout?.on("data", (d: Buffer) => { output += d.toString() })
  child.stderr?.on("data", (d: Buffer) => { output += d.toString() })
  // A cold start builds the SPA and starts the embedded database; on a busy machine that alone can pass a minute.
  const deadline = Date.now() + 240_000
  let lastError: unknown
  for (;;) {
    if (child.exitCode !== null) throw new Error(`product exited early (${child.exitCode}):\n${output.slice(-4000)}`)
    try {
      const r = await fetch(`${baseUrl}/api/health`)
      if (r.ok) break
    } catch (error) {
      // not listening yet
      lastError = error
    }
    if (Date.now() > deadline) throw new Error(`product not ready in time (${String(lastError)}):\n${output.slice(-4000)}`)
    await new Promise((r) => setTimeout(r, 250))
  }
  console.log(`e2e: product ready at ${baseUrl} in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  project.provide("baseUrl", baseUrl)
  project.provide("mailboxUrl", `http://127.0.0.1:${mailboxPort}/`)
  return async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child?.once("exit", r))
      child.kill("SIGTERM")
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))])
      if (child.exitCode === null) child.kill("SIGKILL")
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
    await new Promise((r) => mailbox?.close(r))
    await smtp?.close()
  }
}
