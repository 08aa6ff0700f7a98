/**
 * Identity checks beyond CIS (issue 16): role trust open to everyone or to other accounts without a condition, and
 * privilege-escalation permission sets in attached customer policies and inline policies — each with its compliant
 * and non-compliant case on moto.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AttachRolePolicyCommand, CreatePolicyCommand, CreateRoleCommand, CreateUserCommand, PutUserPolicyCommand } from "@aws-sdk/client-iam"
import type { ScanServiceResult } from "../../server/scanner/aws/scan-service.ts"
import { privilegeEscalationSets, parsePolicy } from "../../server/scanner/aws/policy.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { ACCOUNT, expectCases, OTHER_ACCOUNT, rowFor, scan, seedClients } from "./helpers.ts"

const doc = (...statements: ReadonlyArray<Record<string, unknown>>) => JSON.stringify({ Version: "2012-10-17", Statement: statements })
const assume = (principal: unknown, condition?: Record<string, unknown>) =>
  doc({ Effect: "Allow", Principal: principal, Action: "sts:AssumeRole", ...(condition === undefined ? {} : { Condition: condition }) })

describe("identity checks on moto", () => {
  let moto: Moto
  let r: ScanServiceResult

  beforeAll(async () => {
    moto = await startMoto()
    const iam = seedClients(moto).get("iam", "us-east-1")
    const roles: ReadonlyArray<[string, string]> = [
      ["open-to-all", assume("*")],
      ["open-to-all-external-id", assume({ AWS: "*" }, { StringEquals: { "sts:ExternalId": "guessable" } })],
      ["org-only", assume({ AWS: "*" }, { StringEquals: { "aws:PrincipalOrgID": "o-abc123" } })],
      ["partner-bare", assume({ AWS: `arn:aws:iam::${OTHER_ACCOUNT}:root` })],
      ["partner-external-id", assume({ AWS: `arn:aws:iam::${OTHER_ACCOUNT}:root` }, { StringEquals: { "sts:ExternalId": "partner-7f3a" } })],
      ["own-account", assume({ AWS: `arn:aws:iam::${ACCOUNT}:root` })],
      ["lambda-service", assume({ Service: "lambda.amazonaws.com" })],
    ]
    for (const [name, trust] of roles) await iam.send(new CreateRoleCommand({ RoleName: name, AssumeRolePolicyDocument: trust }))

    const policies: ReadonlyArray<[string, string]> = [
      ["versions", doc({ Effect: "Allow", Action: "iam:CreatePolicyVersion", Resource: "*" })],
      ["pass-and-run", doc({ Effect: "Allow", Action: ["iam:PassRole", "ec2:RunInstances"], Resource: "*" })],
      ["pass-only", doc({ Effect: "Allow", Action: ["iam:PassRole", "ec2:Describe*"], Resource: "*" })],
      ["iam-star-denied", doc({ Effect: "Allow", Action: "iam:*", Resource: "*" }, { Effect: "Deny", Action: ["iam:*"], Resource: "*" })],
    ]
    for (const [name, document] of policies) {
      const created = await iam.send(new CreatePolicyCommand({ PolicyName: name, PolicyDocument: document }))
      await iam.send(new AttachRolePolicyCommand({ RoleName: "lambda-service", PolicyArn: created.Policy!.Arn! }))
    }
    await iam.send(new CreatePolicyCommand({ PolicyName: "unattached-escalation", PolicyDocument: doc({ Effect: "Allow", Action: "iam:*", Resource: "*" }) }))

    await iam.send(new CreateUserCommand({ UserName: "dev" }))
    await iam.send(new PutUserPolicyCommand({ UserName: "dev", PolicyName: "self-keys", PolicyDocument: doc({ Effect: "Allow", Action: "iam:CreateAccessKey", Resource: "*" }) }))
    await iam.send(new PutUserPolicyCommand({ UserName: "dev", PolicyName: "read", PolicyDocument: doc({ Effect: "Allow", Action: ["iam:Get*", "iam:List*"], Resource: "*" }) }))
    r = await scan(moto, "iam", {
      checkIds: ["iam_role_trust_not_public", "iam_role_cross_account_trust_with_condition", "iam_policy_allows_privilege_escalation", "iam_inline_policy_allows_privilege_escalation"],
    })
  }, 120_000)

  afterAll(async () => {
    await moto?.stop()
  })

  it("iam_role_trust_not_public: a public principal is open unless an organization or account condition pins it (an external id does not)", () => {
    expectCases(r, "iam_role_trust_not_public", {
      nonCompliant: ["open-to-all", "open-to-all-external-id"],
      compliant: ["org-only", "partner-bare", "own-account", "lambda-service"],
    })
  })

  it("iam_role_cross_account_trust_with_condition: another account without any condition fails; with an external id, the own account and services pass", () => {
    expectCases(r, "iam_role_cross_account_trust_with_condition", {
      nonCompliant: ["partner-bare", "open-to-all"],
      compliant: ["partner-external-id", "own-account", "lambda-service", "org-only"],
    })
    expect(rowFor(r, "iam_role_cross_account_trust_with_condition", "partner-bare").trusted_accounts).toEqual([`arn:aws:iam::${OTHER_ACCOUNT}:root`])
  })

  it("iam_policy_allows_privilege_escalation: attached policies with a complete escalation set fail, partial sets and denied actions pass, unattached ones are not listed", () => {
    expectCases(r, "iam_policy_allows_privilege_escalation", { nonCompliant: ["versions", "pass-and-run"], compliant: ["pass-only", "iam-star-denied"] })
    expect(rowFor(r, "iam_policy_allows_privilege_escalation", "pass-and-run").escalation).toEqual(["PassRole+EC2"])
    expect(() => rowFor(r, "iam_policy_allows_privilege_escalation", "unattached-escalation")).toThrow(/no row/)
  })

  it("iam_inline_policy_allows_privilege_escalation: an inline CreateAccessKey fails, read-only passes", () => {
    expectCases(r, "iam_inline_policy_allows_privilege_escalation", { nonCompliant: ["user/dev/self-keys"], compliant: ["user/dev/read"] })
  })
})

describe("privilege-escalation sets", () => {
  it("needs every action of a set, honours wildcards and NotAction, and an unconditional Deny takes an action back", () => {
    const sets = (statements: ReadonlyArray<Record<string, unknown>>) => privilegeEscalationSets(parsePolicy(doc(...statements)))
    expect(sets([{ Effect: "Allow", Action: ["iam:PassRole", "lambda:CreateFunction"], Resource: "*" }])).toEqual([])
    expect(sets([{ Effect: "Allow", Action: ["iam:PassRole", "lambda:Create*", "lambda:InvokeFunction"], Resource: "*" }])).toEqual(["PassRole+Lambda", "PassRole+LambdaEventSource"])
    expect(sets([{ Effect: "Allow", NotAction: "iam:*", Resource: "*" }])).toContain("UpdateFunctionCode")
    expect(sets([{ Effect: "Allow", NotAction: "iam:*", Resource: "*" }]).some((s) => s.startsWith("PassRole"))).toBe(false)
    expect(sets([{ Effect: "Allow", Action: "lambda:UpdateFunctionCode", Resource: "*" }, { Effect: "Deny", Action: "lambda:*", Resource: "*" }])).toEqual([])
    expect(sets([{ Effect: "Allow", Action: "lambda:UpdateFunctionCode", Resource: "*" }, { Effect: "Deny", Action: "lambda:*", Resource: "*", Condition: { Bool: { "aws:MultiFactorAuthPresent": "false" } } }])).toEqual(["UpdateFunctionCode"])
  })
})
