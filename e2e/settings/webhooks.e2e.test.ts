/**
 * Webhooks (issue 33), in Chromium against the real product (started with INTEGRATIONS_ALLOW_PRIVATE_TARGETS=1, so a
 * receiver on this machine may be a target): the workspace owner opens Webhooks from the user menu, adds a webhook
 * pointing at a receiver run by the test, sees the signing secret once, sends a test event, and reads the delivery in
 * the log; the receiver got the event signed with that secret. Every screen is looked at (1280 px and 390 px
 * screenshots in e2e/artifacts/, axe).
 */
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { verifySignature } from "../../server/integrations/webhook-signature.ts"
import { WebhookMessages } from "../../src/contracts/webhooks.ts"
import { look, newPerson, signIn, signUpAndVerifyViaApi, waitForPath, type Person } from "../support/access.ts"
import { launchBrowser, newPage } from "../support/browser.ts"

let browser: Browser
const owner: Person = newPerson("webhookowner")
const received: Array<{ headers: IncomingMessage["headers"]; body: string }> = []
const receiver = createServer((req, res) => {
  const chunks: Array<Buffer> = []
  req.on("data", (c: Buffer) => chunks.push(c))
  req.on("end", () => {
    received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
    res.end("ok")
  })
})
let receiverUrl = ""

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/cloud-audit`
  browser = await launchBrowser()
  await signUpAndVerifyViaApi(owner)
})

afterAll(async () => {
  await browser?.close()
  receiver.closeAllConnections()
  await new Promise((r) => receiver.close(r))
})

describe("webhooks", () => {
  it("an admin adds a webhook, copies its secret once, sends a test and reads the delivery", async () => {
    const page = await newPage(browser)
    await signIn(page, owner.email, owner.password)
    await waitForPath(page, "/dashboard")
    await page.getByRole("banner").getByRole("button").last().click()
    await page.getByRole("menu").getByRole("menuitem", { name: "Webhooks" }).click()
    await waitForPath(page, "/dashboard/settings/webhooks")
    await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor()
    await page.getByText("No destination yet.").waitFor()
    await look(page, "webhooks-empty")

    await page.getByRole("button", { name: "Add destination" }).click()
    const form = page.getByRole("form", { name: "Destination" })
    await form.getByRole("textbox", { name: "Name" }).fill("SIEM")
    await form.getByRole("textbox", { name: /^URL/ }).fill(receiverUrl)
    await look(page, "webhooks-form")
    await form.getByRole("button", { name: "Add destination" }).click()

    const secretCard = page.getByRole("region", { name: "Signing secret" })
    await secretCard.getByText(WebhookMessages.secretOnce).waitFor()
    const secret = ((await secretCard.getByLabel("Signing secret value").textContent()) ?? "").trim()
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/)
    await look(page, "webhooks-secret")
    await secretCard.getByRole("button", { name: "I have copied it" }).click()
    await secretCard.waitFor({ state: "detached" })

    const card = page.getByRole("listitem", { name: "SIEM" })
    expect(await card.textContent()).toContain("Never")
    await card.getByRole("button", { name: "Send test" }).click()
    const log = page.getByRole("region", { name: "Deliveries" })
    await log.getByText("webhook.test").first().waitFor()
    for (const deadline = Date.now() + 30_000; received.length === 0 && Date.now() < deadline; ) await page.waitForTimeout(250)
    expect(received).toHaveLength(1)
    const got = received[0]!
    expect(JSON.parse(got.body)).toMatchObject({ type: "webhook.test", data: { webhook: { name: "SIEM" } } })
    expect(verifySignature(secret, String(got.headers["x-cloud-audit-signature"]), got.body)).toBe(true)
    // The page watches the test delivery: once it was tried, the card's "Last delivery" and the log are read again by
    // themselves (no Refresh pressed).
    await log.getByText("delivered", { exact: true }).first().waitFor({ timeout: 40_000 })
    await expect.poll(async () => (await card.textContent()) ?? "", { timeout: 10_000 }).not.toContain("Never")
    await look(page, "webhooks-deliveries")
    await page.close()
  })
})
