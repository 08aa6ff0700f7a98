/**
 * server/scanner/<provider>/COVERAGE.md maps the field's check ids in the services we scan to our checks or to why not;
 * each is rendered from the provider's coverage data and catalogue and must match it (UPDATE_CHECK_DOCS=1 rewrites it,
 * like CHECKS.md in tests/scanner-gcp/catalogue-doc.test.ts).
 */
import { readFileSync, writeFileSync } from "node:fs"
import { dirname, join, resolve as resolvePath } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { awsChecks, awsServices } from "../../server/scanner/aws/catalogue.ts"
import { AWS_COVERAGE } from "../../server/scanner/aws/coverage.ts"
import { azureChecks, azureServices } from "../../server/scanner/azure/catalogue.ts"
import { AZURE_COVERAGE } from "../../server/scanner/azure/coverage.ts"
import { gcpChecks, gcpServices } from "../../server/scanner/gcp/catalogue.ts"
import { GCP_COVERAGE } from "../../server/scanner/gcp/coverage.ts"
import { parsePeers, renderCoverage, resolve, type CoverageMap } from "../../server/scanner/coverage.ts"

const ROOT = resolvePath(dirname(fileURLToPath(import.meta.url)), "../..")

const INTRO = (provider: string, catalogue: string) =>
  `Generated from \`server/scanner/${provider}/coverage.ts\` and \`server/scanner/${provider}/${catalogue}\` by \`tests/scanner/coverage-doc.test.ts\` (UPDATE_CHECK_DOCS=1). Every check id of Prowler and every plugin of CloudSploit in the services we scan, with the severity it gives, answered by the check of ours that makes the same decision, or by the reason we do not make it.`

const docs: ReadonlyArray<{ path: string; map: CoverageMap; text: () => string; ours: ReadonlyArray<string> }> = [
  {
    path: "server/scanner/aws/COVERAGE.md",
    map: AWS_COVERAGE,
    ours: awsChecks.map((c) => c.id),
    text: () => renderCoverage(AWS_COVERAGE, "AWS coverage of the field's checks", INTRO("aws", "catalogue.ts"), awsServices, awsChecks.map((c) => c.id)),
  },
  {
    path: "server/scanner/gcp/COVERAGE.md",
    map: GCP_COVERAGE,
    ours: gcpChecks.map((c) => c.id),
    text: () => renderCoverage(GCP_COVERAGE, "GCP coverage of the field's checks", INTRO("gcp", "catalogue.ts"), gcpServices, gcpChecks.map((c) => c.id)),
  },
  {
    path: "server/scanner/azure/COVERAGE.md",
    map: AZURE_COVERAGE,
    ours: azureChecks.map((c) => c.id),
    text: () => renderCoverage(AZURE_COVERAGE, "Azure coverage of the field's checks", INTRO("azure", "catalogue.ts"), azureServices, azureChecks.map((c) => c.id)),
  },
]

describe("COVERAGE.md", () => {
  it("is in sync with the coverage data and the catalogue", () => {
    for (const d of docs) {
      const text = `${d.text()}\n`
      const file = join(ROOT, d.path)
      if (process.env["UPDATE_CHECK_DOCS"] === "1") writeFileSync(file, text)
      expect(readFileSync(file, "utf8"), `${d.path} is stale: run UPDATE_CHECK_DOCS=1 npx vitest run tests/scanner/coverage-doc.test.ts`).toBe(text)
    }
  })

  it("lists each peer id once and maps only ids it lists", () => {
    for (const d of docs) {
      const peers = parsePeers(d.map.peers)
      const keys = peers.map((p) => `${p.peer}:${p.id}`)
      expect(new Set(keys).size, `${d.path}: duplicate peer ids`).toBe(keys.length)
      const listed = new Set(peers.map((p) => p.id))
      expect(Object.keys(d.map.coveredBy).filter((id) => !listed.has(id)), `${d.path}: mappings of ids not listed`).toEqual([])
    }
  })

  it("answers a peer id by an explicit mapping, then an identical id of ours, then a reason", () => {
    const map: CoverageMap = {
      provider: "test",
      peers: "prowler s3 a high\ncloudsploit s3 b low\nprowler s3 cHasTags low\nprowler s3 d low",
      coveredBy: { b: "x" },
      whyNot: { d: "tags" },
      reasons: [{ code: "tags", text: "Tags.", match: /HasTags/ }],
    }
    const ours = new Set(["a", "x"])
    expect(resolve(map, ours, "a")).toEqual({ kind: "covered", check: "a" })
    expect(resolve(map, ours, "b")).toEqual({ kind: "covered", check: "x" })
    expect(resolve(map, ours, "cHasTags")).toMatchObject({ kind: "not", reason: { code: "tags" } })
    expect(resolve(map, ours, "d")).toMatchObject({ kind: "not", reason: { code: "tags" } })
    expect(resolve(map, ours, "e")).toMatchObject({ kind: "not", reason: { code: "gap" } })
    expect(() => resolve({ ...map, coveredBy: { b: "gone" } }, ours, "b")).toThrow(/unknown check gone/)
  })
})
