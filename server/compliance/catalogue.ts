/**
 * The framework catalogue (issue 14 "Frameworks as data"): every framework with its sections and requirements, each
 * requirement mapped to the checks whose catalogue entries reference it (AWS `cis.v3` / `cis.v7` / `fsbp`, GCP and
 * Azure `cisRefs`), or manual with a reason. Built once from server/compliance/requirements.ts and the three check
 * catalogues; docs/compliance.md is generated from it (tests/server/compliance-catalogue.test.ts keeps the two in sync).
 *
 * Invariants (tested): requirement ids are unique per framework; every check reference names a requirement of its
 * framework; every requirement belongs to a listed section.
 */
import type { Framework, FrameworkSection, Requirement } from "../../src/contracts/compliance.ts"
import { ProviderIds } from "../../src/contracts/constants.ts"
import type { Severity } from "../../src/contracts/findings.ts"
import { listAwsChecks } from "../scanner/aws/catalogue.ts"
import { listAzureChecks } from "../scanner/azure/catalogue.ts"
import { listGcpChecks } from "../scanner/gcp/catalogue.ts"
import {
  CIS_AWS_V3,
  CIS_AWS_V3_SECTIONS,
  CIS_AWS_V7,
  CIS_AWS_V7_SECTIONS,
  CIS_AZURE_V3_MANUAL,
  CIS_AZURE_V3_SECTIONS,
  CIS_AZURE_V4_MANUAL,
  CIS_AZURE_V4_SECTIONS,
  CIS_GCP_V4_MANUAL,
  CIS_GCP_V4_SECTIONS,
  DEFAULT_MANUAL_REASON,
  MANUAL_REASONS,
  parseRequirements,
  parseSections,
  TITLES,
  type ParsedRequirement,
} from "./requirements.ts"

/** What the compliance views and reports need to know about one check. */
export interface CheckInfo {
  readonly id: string
  readonly title: string
  readonly severity: Severity
  readonly service: string
  readonly remediation: string
}

export interface CatalogueFramework {
  readonly framework: Framework
  readonly sections: ReadonlyArray<FrameworkSection>
  readonly requirements: ReadonlyArray<Requirement>
}

interface Ref {
  readonly check: CheckInfo
  readonly control: string
}

interface Spec {
  readonly id: string
  readonly name: string
  readonly version: string
  readonly provider: Framework["provider"]
  readonly description: string
  readonly sections: ReadonlyMap<string, string>
  /** Listed requirements (all of them, or the manual ones when `refsDefineAutomated`). */
  readonly listed: ReadonlyArray<ParsedRequirement>
  readonly refs: ReadonlyArray<Ref>
  /** Automated requirements are the controls the checks reference (GCP, Azure, FSBP). */
  readonly refsDefineAutomated: boolean
}

const PROVIDER_IDS = { aws: ProviderIds.AWS, gcp: ProviderIds.GCP, azure: ProviderIds.Azure } as const

/** Numeric-aware order of requirement ids ("1.2" < "1.10", "IAM.2" < "IAM.10"). */
export const compareIds = (a: string, b: string): number => a.localeCompare(b, "en", { numeric: true })

/** The section a requirement sits in: "2.1.4" → "2.1", "1.10" → "1", "6.2.1.1" → "6.2" when listed, "IAM.3" → "IAM". */
export const sectionIdOf = (requirementId: string, sections: ReadonlyMap<string, string>): string => {
  const parts = requirementId.split(".")
  for (let n = parts.length - 1; n >= 1; n--) {
    const candidate = parts.slice(0, n).join(".")
    if (sections.has(candidate)) return candidate
  }
  return parts[0]!
}

const parentOf = (sectionId: string, sections: ReadonlyMap<string, string>): string | null => {
  const parts = sectionId.split(".")
  for (let n = parts.length - 1; n >= 1; n--) {
    const candidate = parts.slice(0, n).join(".")
    if (sections.has(candidate)) return candidate
  }
  return null
}

const build = (spec: Spec): CatalogueFramework => {
  const byControl = new Map<string, CheckInfo[]>()
  for (const ref of spec.refs) {
    const list = byControl.get(ref.control) ?? []
    if (!list.some((c) => c.id === ref.check.id)) list.push(ref.check)
    byControl.set(ref.control, list)
  }
  const listed = new Map(spec.listed.map((r) => [r.id, r]))
  const ids = new Set([...listed.keys(), ...(spec.refsDefineAutomated ? byControl.keys() : [])])
  const sections = new Map(spec.sections)
  const requirements: Requirement[] = [...ids].sort(compareIds).map((id) => {
    const checks = byControl.get(id) ?? []
    const entry = listed.get(id)
    const sectionId = sectionIdOf(id, sections)
    if (!sections.has(sectionId)) sections.set(sectionId, spec.id === "aws-fsbp" ? sectionId : `Section ${sectionId}`)
    return {
      id,
      section_id: sectionId,
      title: entry?.title ?? TITLES[spec.id]?.[id] ?? checks[0]?.title ?? id,
      assessment: entry?.assessment ?? "automated",
      checks: checks.map((c) => c.id),
      manual_reason: checks.length > 0 ? null : (MANUAL_REASONS[spec.id]?.[id] ?? DEFAULT_MANUAL_REASON),
    }
  })
  const used = new Set(requirements.map((r) => r.section_id))
  const sectionList: FrameworkSection[] = [...sections.entries()]
    .filter(([id]) => used.has(id) || [...used].some((u) => u.startsWith(`${id}.`)))
    .sort(([a], [b]) => compareIds(a, b))
    .map(([id, title]) => ({ id, title, parent_id: parentOf(id, sections) }))
  const mapped = requirements.filter((r) => r.checks.length > 0).length
  return {
    framework: {
      id: spec.id,
      name: spec.name,
      version: spec.version,
      provider: spec.provider,
      cloud_provider_id: PROVIDER_IDS[spec.provider],
      description: spec.description,
      requirements_total: requirements.length,
      requirements_mapped: mapped,
      requirements_manual: requirements.length - mapped,
    },
    sections: sectionList,
    requirements,
  }
}

const buildAll = (): ReadonlyArray<CatalogueFramework> => {
  const aws = listAwsChecks()
  const gcp = listGcpChecks()
  const azure = listAzureChecks()
  const info = (c: { id: string; title: string; severity: Severity; service: string; remediation: string }): CheckInfo => ({
    id: c.id,
    title: c.title,
    severity: c.severity,
    service: c.service,
    remediation: c.remediation,
  })
  const awsRefs = (key: "v3" | "v7") => aws.flatMap((c) => (c.cis[key] === undefined ? [] : [{ check: info(c), control: c.cis[key]! }]))
  const restRefs = (checks: typeof gcp, key: string) =>
    checks.flatMap((c) => (c.cisRefs[key] === undefined ? [] : [{ check: info(c), control: c.cisRefs[key]! }]))
  const fsbpRefs = aws.flatMap((c) => (c.fsbp === undefined ? [] : c.fsbp.split(/[\s,]+/).filter((x) => x !== "").map((control) => ({ check: info(c), control }))))
  const fsbpSections = new Map(fsbpRefs.map((r) => [r.control.split(".")[0]!, r.control.split(".")[0]!]))
  return [
    build({
      id: "cis-aws-3.0.0",
      name: "CIS Amazon Web Services Foundations Benchmark",
      version: "3.0.0",
      provider: "aws",
      description: "CIS AWS Foundations Benchmark v3.0.0: the widest automatable set of the AWS foundations controls.",
      sections: parseSections(CIS_AWS_V3_SECTIONS),
      listed: parseRequirements(CIS_AWS_V3),
      refs: awsRefs("v3"),
      refsDefineAutomated: false,
    }),
    build({
      id: "cis-aws-7.0.0",
      name: "CIS Amazon Web Services Foundations Benchmark",
      version: "7.0.0",
      provider: "aws",
      description: "CIS AWS Foundations Benchmark v7.0.0: the latest AWS foundations controls.",
      sections: parseSections(CIS_AWS_V7_SECTIONS),
      listed: parseRequirements(CIS_AWS_V7),
      refs: awsRefs("v7"),
      refsDefineAutomated: false,
    }),
    build({
      id: "aws-fsbp",
      name: "AWS Foundational Security Best Practices",
      version: "1.0.0",
      provider: "aws",
      description: "AWS Foundational Security Best Practices controls that this product's checks evaluate.",
      sections: fsbpSections,
      listed: [],
      refs: fsbpRefs,
      refsDefineAutomated: true,
    }),
    build({
      id: "cis-gcp-4.0.0",
      name: "CIS Google Cloud Platform Foundation Benchmark",
      version: "4.0.0",
      provider: "gcp",
      description: "CIS GCP Foundation Benchmark v4.0.0 (v3.0.0 has the same ids).",
      sections: parseSections(CIS_GCP_V4_SECTIONS),
      listed: parseRequirements(CIS_GCP_V4_MANUAL),
      refs: restRefs(gcp, "v4"),
      refsDefineAutomated: true,
    }),
    build({
      id: "cis-azure-3.0.0",
      name: "CIS Microsoft Azure Foundations Benchmark",
      version: "3.0.0",
      provider: "azure",
      description: "CIS Azure Foundations Benchmark v3.0.0, including its database, virtual machine and App Service controls.",
      sections: parseSections(CIS_AZURE_V3_SECTIONS),
      listed: parseRequirements(CIS_AZURE_V3_MANUAL),
      refs: restRefs(azure, "v3"),
      refsDefineAutomated: true,
    }),
    build({
      id: "cis-azure-4.0.0",
      name: "CIS Microsoft Azure Foundations Benchmark",
      version: "4.0.0",
      provider: "azure",
      description: "CIS Azure Foundations Benchmark v4.0.0 (service categories; databases and compute moved to their own benchmarks).",
      sections: parseSections(CIS_AZURE_V4_SECTIONS),
      listed: parseRequirements(CIS_AZURE_V4_MANUAL),
      refs: restRefs(azure, "v4"),
      refsDefineAutomated: true,
    }),
  ]
}

let cached: { readonly frameworks: ReadonlyArray<CatalogueFramework>; readonly checks: ReadonlyMap<string, CheckInfo> } | undefined

const catalogue = () => {
  if (cached === undefined) {
    const checks = new Map<string, CheckInfo>()
    for (const c of [...listAwsChecks(), ...listGcpChecks(), ...listAzureChecks()]) {
      const key = `${"provider" in c ? c.provider : "aws"}:${c.id}`
      checks.set(key, { id: c.id, title: c.title, severity: c.severity, service: c.service, remediation: c.remediation })
    }
    cached = { frameworks: buildAll(), checks }
  }
  return cached
}

export const frameworks = (): ReadonlyArray<CatalogueFramework> => catalogue().frameworks

export const frameworkById = (id: string): CatalogueFramework | undefined => frameworks().find((f) => f.framework.id === id)

export const frameworksOfProvider = (provider: Framework["provider"]): ReadonlyArray<CatalogueFramework> =>
  frameworks().filter((f) => f.framework.provider === provider)

/** A check's catalogue entry (title, severity, remediation) by provider and id. */
export const checkInfo = (provider: Framework["provider"], checkId: string): CheckInfo | undefined => catalogue().checks.get(`${provider}:${checkId}`)

export const providerKeyOf = (cloudProviderId: number): Framework["provider"] | undefined =>
  cloudProviderId === ProviderIds.AWS ? "aws" : cloudProviderId === ProviderIds.GCP ? "gcp" : cloudProviderId === ProviderIds.Azure ? "azure" : undefined
