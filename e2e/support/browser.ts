/** Debian Chromium through playwright-core, with the flags this machine needs (STACK.md 5.12). */
import { chromium, type Browser, type Locator, type Page } from "playwright-core"

export const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

export const launchBrowser = (): Promise<Browser> =>
  chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS })

export const newPage = async (browser: Browser, width = 1280, height = 800): Promise<Page> => {
  const context = await browser.newContext({ viewport: { width, height } })
  return context.newPage()
}

export const shot = (page: Page, name: string) => page.screenshot({ path: `e2e/artifacts/${name}.png`, fullPage: true })

/** The texts of one column of a table's body, found by its header's text (a selection column may come first). */
export const columnTexts = async (table: Locator, header: string): Promise<ReadonlyArray<string>> => {
  const headers = (await table.locator("thead th").allTextContents()).map((text) => text.trim())
  const index = headers.indexOf(header)
  if (index < 0) throw new Error(`No column '${header}' in: ${headers.join(" | ")}`)
  return table.locator(`tbody tr > :nth-child(${index + 1})`).allTextContents()
}
