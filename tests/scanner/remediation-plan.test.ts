/** The plan vocabulary's pure parts (issue 32): state differences, output references, CLI and Terraform rendering. */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { diffStates, ref, resolveRefs, showRefs, renderRestCli, type Json } from "../../server/remediation/plan.ts"
import { awsCall, kebab, principalOf, renderAwsCli, renderAwsTerraform } from "../../server/remediation/aws/fixer.ts"
import "../../server/remediation/aws/remediate.ts"

const json: fc.Arbitrary<Json> = fc.letrec<{ value: Json }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.string({ maxLength: 4 }),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.string({ minLength: 1, maxLength: 3 }), tie("value"), { maxKeys: 3 }),
  ),
})).value

describe("diffStates", () => {
  it("finds no difference exactly when the states are equal (key order ignored)", () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        expect(diffStates(a, a)).toEqual([])
        const equal = JSON.stringify(a) === JSON.stringify(b)
        if (equal) expect(diffStates(a, b)).toEqual([])
        else if (diffStates(a, b).length === 0) expect(a).toEqual(b)
      }),
    )
  })

  it("names each changed, added and removed field by its path", () => {
    expect(diffStates({ A: { B: true, C: [1, 2] }, D: "x" }, { A: { B: false, C: [1] }, E: 1 })).toEqual([
      { path: "A.B", expected: true, actual: false },
      { path: "A.C.1", expected: 2 },
      { path: "D", expected: "x" },
      { path: "E", actual: 1 },
    ])
  })
})

describe("output references", () => {
  it("resolve from the apply's outputs and show as placeholders before it", () => {
    const params = { FlowLogIds: [ref(2, "FlowLogIds", 0)], Keep: "x" }
    expect(resolveRefs(params, [null, {}, { FlowLogIds: ["fl-1"] }])).toEqual({ FlowLogIds: ["fl-1"], Keep: "x" })
    expect(showRefs(params)).toEqual({ FlowLogIds: ["<FlowLogIds.0 answered by step 3>"], Keep: "x" })
    expect(() => resolveRefs(params, [])).toThrow("The output of call 3 has no FlowLogIds.0")
  })

  it("in an undo's calls, name the fix's step or the undo's own, and show what the fix answered once it ran", () => {
    // A fix of 3 calls; its undo reads a token (call 3 of the list, its own step 1) and deletes what fix step 3 created.
    const undo = { FlowLogIds: [ref(2, "FlowLogIds", 0)], etag: ref(3, "etag") }
    expect(showRefs(undo, { applyCalls: 3 })).toEqual({
      FlowLogIds: ["<FlowLogIds.0 answered by step 3 of the fix>"],
      etag: "<etag answered by undo step 1>",
    })
    expect(showRefs(undo, { applyCalls: 3, outputs: [null, {}, { FlowLogIds: ["fl-1"] }] })).toEqual({ FlowLogIds: ["fl-1"], etag: "<etag answered by undo step 1>" })
    // An output the fix did not record keeps its placeholder.
    expect(showRefs(undo, { applyCalls: 3, outputs: [null, {}, {}] })).toEqual({
      FlowLogIds: ["<FlowLogIds.0 answered by step 3 of the fix>"],
      etag: "<etag answered by undo step 1>",
    })
  })
})

describe("renderers", () => {
  it("AWS CLI: command group, kebab operation and parameters, booleans as flags, structures as JSON", () => {
    expect(kebab("DBInstanceIdentifier")).toBe("db-instance-identifier")
    expect(kebab("PutPublicAccessBlock")).toBe("put-public-access-block")
    expect(renderAwsCli(awsCall("iam", "UpdateAccountPasswordPolicy", "us-east-1", { MinimumPasswordLength: 14, RequireSymbols: true, HardExpiry: false }))).toBe(
      "aws iam update-account-password-policy --region us-east-1 --minimum-password-length 14 --require-symbols --no-hard-expiry",
    )
    expect(renderAwsCli(awsCall("ec2", "ModifySnapshotAttribute", "eu-west-1", { SnapshotId: "snap-1", GroupNames: ["all"], X: { a: "it's" } }))).toBe(
      `aws ec2 modify-snapshot-attribute --region eu-west-1 --snapshot-id snap-1 --group-names all --x '{"a":"it'\\''s"}'`,
    )
  })

  it("Terraform: the registered resource per call, a comment for a call without one", () => {
    const tf = renderAwsTerraform([
      awsCall("s3", "PutBucketVersioning", "us-east-1", { Bucket: "my.bucket", VersioningConfiguration: { Status: "Enabled" } }),
      awsCall("ec2", "DeleteFlowLogs", "us-east-1", { FlowLogIds: ["fl-1"] }),
    ])
    expect(tf).toBe(
      [
        `resource "aws_s3_bucket_versioning" "my_bucket" {`,
        `  bucket = "my.bucket"`,
        `  versioning_configuration {`,
        `    status = "Enabled"`,
        `  }`,
        `}`,
        ``,
        `# ec2 DeleteFlowLogs: no Terraform resource manages this call; run the AWS CLI command instead`,
      ].join("\n"),
    )
  })

  it("REST calls render as az rest / curl with a gcloud token", () => {
    expect(renderRestCli({ provider: "azure", service: "Microsoft.Storage", operation: "storageAccounts/write", method: "PATCH", url: "https://management.azure.com/x?api-version=1", body: { a: 1 }, audience: "arm" })).toBe(
      `az rest --method patch --url 'https://management.azure.com/x?api-version=1' --body '{"a":1}'`,
    )
    expect(renderRestCli({ provider: "gcp", service: "storage", operation: "storage.buckets.patch", method: "PATCH", url: "https://storage.googleapis.com/storage/v1/b/b1", body: { versioning: { enabled: true } }, audience: "gcp" })).toBe(
      `curl -X PATCH -H "Authorization: Bearer $(gcloud auth print-access-token)" -H 'Content-Type: application/json' https://storage.googleapis.com/storage/v1/b/b1 -d '{"versioning":{"enabled":true}}'`,
    )
  })

  it("an assumed-role session is simulated as its role", () => {
    expect(principalOf("arn:aws:sts::123456789012:assumed-role/Auditor/session-1")).toBe("arn:aws:iam::123456789012:role/Auditor")
    expect(principalOf("arn:aws:iam::123456789012:user/alice")).toBe("arn:aws:iam::123456789012:user/alice")
  })
})
