/**
 * The wire → SDK renames that official-models.check.ts relies on are the packages' own: each is found in the
 * package's generated deserializer (`sdkName: …item["wireName"]`, TypeSpec-generated packages) or mapper
 * (`sdkName: { serializedName: "properties.wireName"`, AutoRest-generated ones), so the table cannot excuse a
 * misspelt decoder field.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { renames } from "./official-models.check.ts"

const packageOf: Readonly<Record<keyof typeof renames, string>> = {
  storageAccount: "@azure/arm-storage",
  registry: "@azure/arm-containerregistry",
  vaultKey: "@azure/arm-keyvault",
  vaultSecret: "@azure/arm-keyvault",
  managedCluster: "@azure/arm-containerservice",
  workspace: "@azure/arm-databricks",
}

const sources = new Map<string, string>()
/** The generated JavaScript of a package (ESM build), concatenated. */
function sourceOf(pkg: string): string {
  const cached = sources.get(pkg)
  if (cached !== undefined) return cached
  const root = join(process.cwd(), "node_modules", pkg)
  const dir = [join(root, "dist", "esm"), join(root, "dist-esm")].find((d) => statSync(d, { throwIfNoEntry: false })?.isDirectory())
  if (dir === undefined) throw new Error(`${pkg}: no ESM build`)
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith(".js"))
  const text = files.map((f) => readFileSync(join(dir, f), "utf8")).join("\n")
  sources.set(pkg, text)
  return text
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

describe("wire → SDK renames used by the compile-time decoder check", () => {
  for (const [model, table] of Object.entries(renames) as Array<[keyof typeof renames, Readonly<Record<string, string>>]>)
    for (const [wirePath, sdkName] of Object.entries(table))
      it(`${model}: ${wirePath} is ${sdkName} in ${packageOf[model]}`, () => {
        const wire = wirePath.replace(/\[\]/g, "").split(".").at(-1)!
        const text = sourceOf(packageOf[model])
        const deserializer = new RegExp(`\\b${escape(sdkName)}:[^\\n]*item\\["${escape(wire)}"\\]`)
        const mapper = new RegExp(`\\b${escape(sdkName)}:\\s*\\{\\s*serializedName:\\s*"(?:properties\\.)?${escape(wire)}"`)
        expect(deserializer.test(text) || mapper.test(text), `${sdkName} ← ${wire}`).toBe(true)
      })
  it("a made-up rename is not found (the search can fail)", () => {
    const text = sourceOf("@azure/arm-storage")
    expect(/\benableHttpsTrafficOnly:[^\n]*item\["allowBlobPublicAccess"\]/.test(text)).toBe(false)
  })
})
