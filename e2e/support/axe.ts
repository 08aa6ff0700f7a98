/**
 * Accessibility check of the page as it is now: injects node_modules/axe-core/axe.min.js into the page (through the
 * DevTools protocol, so no page CSP can block it), runs axe on the whole document and returns the serious and critical
 * violations (WCAG 2.x A/AA rules and axe's best practices), each with the rule, its help text and the first nodes.
 * react-aria's hidden live announcer is left out (it outlives the screen that announced).
 * `expectAccessible` fails with a readable list.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import type { Page } from "playwright-core"
import { expect } from "vitest"

const require = createRequire(import.meta.url)
let source: string | undefined
const axeSource = (): string => (source ??= readFileSync(require.resolve("axe-core/axe.min.js"), "utf8"))

export interface AxeFinding {
  readonly id: string
  readonly impact: string
  readonly help: string
  readonly nodes: ReadonlyArray<{ readonly target: string; readonly html: string; readonly summary: string }>
}

export const axeViolations = async (page: Page): Promise<ReadonlyArray<AxeFinding>> => {
  const present = await page.evaluate(() => typeof (window as { axe?: unknown }).axe === "object")
  if (!present) await page.evaluate(axeSource())
  return page.evaluate(async () => {
    interface AxeResult {
      violations: Array<{
        id: string
        impact: string | null
        help: string
        nodes: Array<{ target: unknown[]; html: string; failureSummary?: string }>
      }>
    }
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<AxeResult> } }).axe
    // react-aria's visually hidden live announcer keeps the last announcement for a few seconds; it may reference (by
    // aria-labelledby) a label of the previous screen, which is gone. It is not part of the screen under test.
    const result = await axe.run({ exclude: [["[data-live-announcer]"]] } as unknown as Document, { resultTypes: ["violations"] })
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({
        id: v.id,
        impact: v.impact ?? "",
        help: v.help,
        nodes: v.nodes.slice(0, 5).map((n) => ({ target: n.target.map(String).join(" "), html: n.html.slice(0, 300), summary: n.failureSummary ?? "" })),
      }))
  })
}

const describeFindings = (findings: ReadonlyArray<AxeFinding>): string =>
  findings
    .map((f) => `${f.impact} ${f.id}: ${f.help}\n${f.nodes.map((n) => `    ${n.target}\n      ${n.html}\n      ${n.summary.replaceAll("\n", "\n      ")}`).join("\n")}`)
    .join("\n")

/** Asserts no serious or critical axe violation on the page; `screen` names it in the failure. */
export const expectAccessible = async (page: Page, screen: string): Promise<void> => {
  const findings = await axeViolations(page)
  expect(findings, `axe on ${screen} (${page.url()}):\n${describeFindings(findings)}`).toEqual([])
}
