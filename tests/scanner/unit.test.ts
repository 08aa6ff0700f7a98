/** Pure parts of the scanner: policy analysis, port/NACL logic, metric filter matching, status rules, error mapping, catalogue integrity. */
import { AsyncLocalStorage } from "node:async_hooks"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { deriveStatus, severities, type CollectionError, type DetailRow } from "../../server/scanner/check.ts"
import { makeLimiter, mapConcurrent } from "../../server/scanner/pool.ts"
import { awsChecks, awsServices, listAwsChecks, scannableAwsServices } from "../../server/scanner/aws/catalogue.ts"
import { classifyAwsError } from "../../server/scanner/aws/errors.ts"
import { actionMatches, deniesInsecureTransport, fullAdminStatements, parsePolicy, publicAllowStatements } from "../../server/scanner/aws/policy.ts"
import { coversTcpPort, exposedPorts, naclOpenPorts } from "../../server/scanner/aws/checks/ec2.ts"
import { monitoringSpecs, patternCovers } from "../../server/scanner/aws/checks/cloudwatch.ts"
import { isModernTlsPolicy } from "../../server/scanner/aws/checks/elbv2.ts"
import { parseCredentialReport } from "../../server/scanner/aws/collectors/iam.ts"
import { normalizeBucketRegion } from "../../server/scanner/aws/collectors/s3.ts"
import { collectorOf, resourceTypes } from "../../server/scanner/aws/inventory.ts"
import { remediableChecks } from "../../server/remediation/aws/remediate.ts"

const doc = (statement: unknown) => parsePolicy(JSON.stringify({ Version: "2012-10-17", Statement: statement }))

describe("policy analysis", () => {
  it("parses single statements, lists, URL-encoded IAM documents and rejects non-policies", () => {
    expect(doc({ Effect: "Allow", Action: "s3:GetObject", Resource: "*" })?.statements).toHaveLength(1)
    expect(parsePolicy(encodeURIComponent(JSON.stringify({ Statement: [{ Effect: "Allow", Action: "*", Resource: "*" }] })))?.statements[0]?.actions).toEqual(["*"])
    expect(parsePolicy("not json")).toBeUndefined()
    expect(parsePolicy(JSON.stringify({ foo: 1 }))).toBeUndefined()
    expect(parsePolicy("")).toBeUndefined()
  })

  it("matches IAM action wildcards case-insensitively", () => {
    expect(actionMatches("s3:Get*", "s3:GetObject")).toBe(true)
    expect(actionMatches("S3:getobject", "s3:GetObject")).toBe(true)
    expect(actionMatches("s3:Put*", "s3:GetObject")).toBe(false)
    expect(actionMatches("*", "kms:Decrypt")).toBe(true)
  })

  it("treats Principal * as public unless a condition pins the caller", () => {
    expect(publicAllowStatements(doc([{ Effect: "Allow", Principal: "*", Action: "s3:GetObject", Resource: "*" }]))).toHaveLength(1)
    expect(publicAllowStatements(doc([{ Effect: "Allow", Principal: { AWS: "*" }, Action: "sqs:*", Resource: "*" }]))).toHaveLength(1)
    expect(publicAllowStatements(doc([{ Effect: "Allow", Principal: { AWS: "arn:aws:iam::123456789012:root" }, Action: "*", Resource: "*" }]))).toHaveLength(0)
    expect(publicAllowStatements(doc([{ Effect: "Allow", Principal: "*", Action: "*", Resource: "*", Condition: { StringEquals: { "aws:SourceAccount": "123456789012" } } }]))).toHaveLength(0)
    // a wildcard value does not restrict anything
    expect(publicAllowStatements(doc([{ Effect: "Allow", Principal: "*", Action: "*", Resource: "*", Condition: { StringLike: { "aws:SourceArn": "*" } } }]))).toHaveLength(1)
    expect(publicAllowStatements(doc([{ Effect: "Deny", Principal: "*", Action: "*", Resource: "*" }]))).toHaveLength(0)
    // action filter, including NotAction
    expect(publicAllowStatements(doc([{ Effect: "Allow", Principal: "*", Action: "s3:PutObject", Resource: "*" }]), ["s3:GetObject"])).toHaveLength(0)
    expect(publicAllowStatements(doc([{ Effect: "Allow", Principal: "*", NotAction: "s3:DeleteObject", Resource: "*" }]), ["s3:GetObject"])).toHaveLength(1)
  })

  it("finds full-admin statements and TLS-only denies", () => {
    expect(fullAdminStatements(doc([{ Effect: "Allow", Action: "*", Resource: "*" }]))).toHaveLength(1)
    expect(fullAdminStatements(doc([{ Effect: "Allow", Action: ["*"], Resource: ["*"] }]))).toHaveLength(1)
    expect(fullAdminStatements(doc([{ Effect: "Allow", Action: "s3:*", Resource: "*" }]))).toHaveLength(0)
    expect(fullAdminStatements(doc([{ Effect: "Allow", Action: "*", Resource: "arn:aws:s3:::b/*" }]))).toHaveLength(0)
    const tls = { Effect: "Deny", Principal: "*", Action: "s3:*", Resource: "*", Condition: { Bool: { "aws:SecureTransport": "false" } } }
    expect(deniesInsecureTransport(doc([tls]))).toBe(true)
    expect(deniesInsecureTransport(doc([{ ...tls, Condition: { Bool: { "aws:SecureTransport": false } } }]))).toBe(true)
    expect(deniesInsecureTransport(doc([{ ...tls, Effect: "Allow" }]))).toBe(false)
    expect(deniesInsecureTransport(doc([{ ...tls, Action: "s3:GetObject" }]))).toBe(false)
  })
})

describe("network exposure", () => {
  const sg = (ingress: Array<{ protocol: string; fromPort?: number; toPort?: number; ipv4?: string[]; ipv6?: string[] }>) => ({
    id: "sg-1",
    name: "t",
    vpcId: "vpc-1",
    tags: [],
    egress: [],
    ingress: ingress.map((r) => ({ protocol: r.protocol, fromPort: r.fromPort, toPort: r.toPort, ipv4: r.ipv4 ?? [], ipv6: r.ipv6 ?? [], groups: [] })),
  })

  it("port ranges, protocol numbers and all-traffic rules", () => {
    expect(coversTcpPort("tcp", 0, 1024, 22)).toBe(true)
    expect(coversTcpPort("6", 3000, 4000, 3389)).toBe(true)
    expect(coversTcpPort("udp", 0, 65535, 22)).toBe(false)
    expect(coversTcpPort("-1", undefined, undefined, 3389)).toBe(true)
    expect(exposedPorts(sg([{ protocol: "tcp", fromPort: 20, toPort: 30, ipv4: ["0.0.0.0/0"] }]), [22, 3389], ["ipv4"])).toEqual(["tcp/22 from 0.0.0.0/0"])
    expect(exposedPorts(sg([{ protocol: "tcp", fromPort: 22, toPort: 22, ipv4: ["10.0.0.0/8"] }]), [22], ["ipv4", "ipv6"])).toEqual([])
  })

  it("property: a rule only exposes ports inside its range", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 65535 }), fc.integer({ min: 0, max: 65535 }), fc.integer({ min: 0, max: 65535 }), (a, b, port) => {
        const [from, to] = a <= b ? [a, b] : [b, a]
        return coversTcpPort("tcp", from, to, port) === (from <= port && port <= to)
      }),
    )
  })

  it("NACL rules are evaluated in rule-number order", () => {
    const entry = (ruleNumber: number, action: string, from?: number, to?: number) => ({
      ruleNumber,
      egress: false,
      action,
      protocol: from === undefined ? "-1" : "6",
      cidr: "0.0.0.0/0",
      ipv6Cidr: undefined,
      fromPort: from,
      toPort: to,
    })
    expect(naclOpenPorts([entry(100, "allow"), entry(32767, "deny")], [22])).toEqual(["tcp/22 from 0.0.0.0/0 (rule 100)"])
    expect(naclOpenPorts([entry(90, "deny", 22, 22), entry(100, "allow")], [22, 3389])).toEqual(["tcp/3389 from 0.0.0.0/0 (rule 100)"])
    expect(naclOpenPorts([entry(32767, "deny")], [22])).toEqual([])
  })
})

describe("CIS monitoring filter patterns", () => {
  it("every benchmark pattern covers its own terms, and dropping a term breaks the match", () => {
    for (const spec of monitoringSpecs) {
      expect(patternCovers(spec.pattern, spec.terms), spec.id).toBe(true)
      const weakened = spec.pattern.replace(spec.terms[spec.terms.length - 1]?.split("=")[1] ?? "", "Nothing")
      expect(patternCovers(weakened, spec.terms), spec.id).toBe(false)
    }
  })

  it("ignores whitespace and quoting differences", () => {
    expect(patternCovers('{ ($.errorCode="*UnauthorizedOperation") || ($.errorCode = "AccessDenied*") }', monitoringSpecs[0]?.terms ?? [])).toBe(true)
    expect(patternCovers("{ $.errorCode = *UnauthorizedOperation }", monitoringSpecs[0]?.terms ?? [])).toBe(false)
  })
})

describe("status, errors and parsing", () => {
  const ok: DetailRow = { resource_id: "a", region: "r", compliant: true, reason: "" }
  const bad: DetailRow = { ...ok, compliant: false }
  const err: CollectionError = { resourceType: "s3.policy", region: "r", operation: "s3:GetBucketPolicy", kind: "access_denied", code: "AccessDenied", message: "no" }

  it("fail dominates error, error dominates pass", () => {
    expect(deriveStatus([ok, bad], [err])).toBe("fail")
    expect(deriveStatus([ok], [err])).toBe("error")
    expect(deriveStatus([], [err])).toBe("error")
    expect(deriveStatus([ok], [])).toBe("pass")
    expect(deriveStatus([], [])).toBe("pass")
  })

  it("classifies SDK errors, including emulator HTML answers", () => {
    const sdkError = (name: string, status: number, message = "x") => Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } })
    expect(classifyAwsError(sdkError("AccessDenied", 403)).kind).toBe("access_denied")
    expect(classifyAwsError(sdkError("UnauthorizedOperation", 403)).kind).toBe("access_denied")
    expect(classifyAwsError(sdkError("ThrottlingException", 400)).kind).toBe("throttled")
    expect(classifyAwsError(sdkError("OptInRequired", 401)).kind).toBe("region_disabled")
    expect(classifyAwsError(sdkError("Error", 500, "@aws-sdk XML parse error: mismatched tags <html> and </title>")).kind).toBe("unsupported")
    expect(classifyAwsError(sdkError("SyntaxError", 500, `Unexpected token '<', "<!doctype "... is not valid JSON`))).toMatchObject({ kind: "unsupported", code: "NotImplemented", httpStatus: 500 })
    expect(classifyAwsError(sdkError("InternalError", 500)).kind).toBe("error")
  })

  it("parses the credential report and bucket locations", () => {
    const rows = parseCredentialReport(
      "user,arn,user_creation_time,password_enabled,password_last_used,mfa_active,access_key_1_active,access_key_1_last_used_date\n" +
        "alice,arn:aws:iam::1:user/alice,2024-01-01T00:00:00+00:00,true,no_information,false,true,N/A\n",
    )
    expect(rows[0]).toMatchObject({ user: "alice", passwordEnabled: true, passwordLastUsed: null, mfaActive: false, accessKey1Active: true, accessKey1LastUsed: null })
    expect(rows[0]?.userCreationTime?.toISOString()).toBe("2024-01-01T00:00:00.000Z")
    expect(normalizeBucketRegion(undefined)).toBe("us-east-1")
    expect(normalizeBucketRegion("EU")).toBe("eu-west-1")
    expect(normalizeBucketRegion("ap-south-1")).toBe("ap-south-1")
  })

  it("recognises TLS 1.2+ load balancer policies", () => {
    expect(isModernTlsPolicy("ELBSecurityPolicy-TLS13-1-2-2021-06")).toBe(true)
    expect(isModernTlsPolicy("ELBSecurityPolicy-FS-1-2-Res-2020-10")).toBe(true)
    expect(isModernTlsPolicy("ELBSecurityPolicy-2016-08")).toBe(false)
    expect(isModernTlsPolicy("ELBSecurityPolicy-TLS13-1-0-2021-06")).toBe(false)
  })
})

describe("limiter", () => {
  it("never runs more than the limit at once and keeps order in mapConcurrent", async () => {
    const limiter = makeLimiter(3)
    let peak = 0
    const results = await mapConcurrent(Array.from({ length: 20 }, (_, i) => i), 10, (i) =>
      limiter.run(async () => {
        peak = Math.max(peak, limiter.active())
        await new Promise((r) => setTimeout(r, 2))
        return i * 2
      }),
    )
    expect(peak).toBe(3)
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i * 2))
    expect(() => makeLimiter(0)).toThrow(RangeError)
  })

  it("starts a waiting task in its caller's async context, not in the context of the task that freed the slot", async () => {
    const job = new AsyncLocalStorage<string>()
    const limiter = makeLimiter(1)
    let finish: () => void = () => undefined
    const first = job.run("a", () => limiter.run(() => new Promise<void>((resolve) => (finish = resolve))))
    const second = job.run("b", () => limiter.run(async () => job.getStore()))
    finish()
    await first
    expect(await second).toBe("b")
  })
})

describe("catalogue", () => {
  const testSources = readdirSync(join(import.meta.dirname)).filter((f) => f.endsWith(".test.ts") && f !== "unit.test.ts").map((f) => readFileSync(join(import.meta.dirname, f), "utf8"))

  it("has at least 60 checks with unique ids, known services, severities and inputs", () => {
    expect(awsChecks.length).toBeGreaterThanOrEqual(60)
    expect(new Set(awsChecks.map((c) => c.id)).size).toBe(awsChecks.length)
    const services = new Set(awsServices.map((s) => s.id))
    const inputs = new Set<string>(resourceTypes)
    for (const c of awsChecks) {
      expect(services.has(c.service), c.id).toBe(true)
      expect(severities).toContain(c.severity)
      expect(c.uses.length, c.id).toBeGreaterThan(0)
      for (const u of c.uses) {
        expect(inputs.has(u), `${c.id} uses ${u}`).toBe(true)
        expect(() => collectorOf(u)).not.toThrow()
      }
      expect(c.remediation.length, c.id).toBeGreaterThan(20)
      if (c.testedWith === "sdk-mock") expect(c.mockReason, c.id).toBeTruthy()
    }
    expect(scannableAwsServices().map((s) => s.id).sort()).toEqual(awsServices.map((s) => s.id).sort())
  })

  it("every check is exercised by name in an end-to-end moto test", () => {
    const missing = awsChecks.filter((c) => !testSources.some((src) => src.includes(`"${c.id}"`) || src.includes(`\`${c.id}\``)) && !c.id.startsWith("cloudwatch_log_metric_filter_"))
    expect(missing.map((c) => c.id)).toEqual([])
    // the 15 metric-filter checks are driven from monitoringSpecs in logging.test.ts
    expect(testSources.some((src) => src.includes("monitoringSpecs"))).toBe(true)
  })

  it("every fixer is exercised fail -> fix -> pass in a remediation test on moto", () => {
    const remediationSources = readdirSync(join(import.meta.dirname))
      .filter((f) => f.startsWith("remediation-") && f.endsWith(".test.ts"))
      .map((f) => readFileSync(join(import.meta.dirname, f), "utf8"))
      .join("\n")
    const fixable = remediableChecks().map((f) => f.checkId)
    expect(new Set(fixable).size).toBe(fixable.length)
    expect(fixable.filter((id) => !remediationSources.includes(`"${id}"`))).toEqual([])
    for (const id of fixable) expect(awsChecks.some((c) => c.id === id), id).toBe(true)
  })

  it("covers the automated CIS AWS v3.0 controls", () => {
    const cisV3 = new Set(awsChecks.flatMap((c) => (c.cis.v3 === undefined ? [] : [c.cis.v3])))
    const automatedV3 = [
      "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.10", "1.11", "1.12", "1.13", "1.14", "1.15", "1.16", "1.17", "1.19", "1.20",
      "2.1.1", "2.1.2", "2.1.4", "2.2.1", "2.3.1", "2.3.2", "2.3.3", "2.4.1",
      "3.1", "3.2", "3.3", "3.4", "3.5", "3.6", "3.7", "3.8", "3.9",
      ...Array.from({ length: 16 }, (_, i) => `4.${i + 1}`),
      "5.1", "5.2", "5.3", "5.4", "5.6",
    ]
    expect(automatedV3).toHaveLength(54)
    expect(automatedV3.filter((id) => !cisV3.has(id))).toEqual([])
  })

  it("lists metadata without evaluate functions", () => {
    const listed = listAwsChecks("s3")
    expect(listed.length).toBe(awsChecks.filter((c) => c.service === "s3").length)
    expect(listed.every((c) => !("evaluate" in c))).toBe(true)
  })
})
