/** Lambda checks (FSBP Lambda.1, Lambda.2; public function URLs). */
import type { LambdaFunction } from "../collectors/lambda.ts"
import { defineCheck, row } from "../define-check.ts"
import type { DetailRow, RowValue } from "../../check.ts"
import { publicAllowStatements } from "../policy.ts"

/**
 * Runtime deprecation dates (Lambda stops applying security patches), from the AWS Lambda runtime
 * deprecation policy page. Compared with the evaluation clock, so the table stays correct as dates pass;
 * runtimes not listed are considered supported.
 */
export const RUNTIME_DEPRECATION: Readonly<Record<string, string>> = {
  "nodejs": "2016-10-31", "nodejs4.3": "2020-03-06", "nodejs4.3-edge": "2019-04-30", "nodejs6.10": "2019-08-12", "nodejs8.10": "2020-03-06",
  "nodejs10.x": "2021-07-30", "nodejs12.x": "2023-03-31", "nodejs14.x": "2023-12-04", "nodejs16.x": "2024-06-12", "nodejs18.x": "2025-09-01",
  "nodejs20.x": "2026-04-30",
  "python2.7": "2021-07-15", "python3.6": "2022-07-18", "python3.7": "2023-12-04", "python3.8": "2024-10-14", "python3.9": "2025-12-15",
  "ruby2.5": "2021-07-30", "ruby2.7": "2023-12-07", "ruby3.2": "2026-03-31",
  "java8": "2024-01-08", "go1.x": "2024-01-08", "provided": "2024-01-08",
  "dotnetcore1.0": "2019-07-30", "dotnetcore2.0": "2019-05-30", "dotnetcore2.1": "2022-01-05", "dotnetcore3.1": "2023-04-03",
  "dotnet5.0": "2022-05-10", "dotnet6": "2024-12-20", "dotnet7": "2024-05-14",
}

type FnInput = "lambda.functions" | "lambda.log_groups" | "lambda.code_signing" | "lambda.event_invoke"

const fnCheck = (spec: {
  readonly id: string
  readonly title: string
  readonly description: string
  readonly severity: "critical" | "high" | "medium" | "low"
  readonly fsbp?: string
  readonly remediation: string
  readonly labels: Readonly<Record<string, string>>
  readonly uses: ReadonlyArray<FnInput>
  /** undefined: the function is not judged (input missing for it). */
  readonly judge: (f: LambdaFunction) => { readonly ok: boolean; readonly reason: string; readonly fields: Readonly<Record<string, RowValue>> } | undefined
}) =>
  defineCheck({
    id: spec.id,
    service: "lambda",
    title: spec.title,
    description: spec.description,
    severity: spec.severity,
    cis: {},
    ...(spec.fsbp === undefined ? {} : { fsbp: spec.fsbp }),
    remediation: spec.remediation,
    field_labels: spec.labels,
    uses: spec.uses,
    testedWith: "moto",
    evaluate: (inv) =>
      inv.lambda.regions.flatMap((r) =>
        (r.functions ?? []).flatMap((f): DetailRow[] => {
          const j = spec.judge(f)
          return j === undefined ? [] : [row(f.name, r.region, j.ok, j.reason, j.fields)]
        }),
      ),
  })

export const lambdaChecks = [
  defineCheck({
    id: "awslambda_function_not_publicly_accessible",
    service: "lambda",
    title: "Lambda function policies should prohibit public access",
    description: "Finds functions whose resource-based policy lets any principal invoke or manage them without a restricting condition.",
    severity: "critical",
    cis: {},
    fsbp: "Lambda.1",
    remediation: "Remove the statement granting Principal \"*\" (aws lambda remove-permission --function-name F --statement-id SID), or add an aws:SourceArn/aws:SourceAccount condition.",
    field_labels: { public_statements: "Public statements" },
    uses: ["lambda.functions", "lambda.policies"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.lambda.regions.flatMap((r) =>
        (r.functions ?? [])
          .filter((f) => f.policy !== undefined)
          .map((f) => {
            const open = publicAllowStatements(f.policy ?? undefined, ["lambda:InvokeFunction", "lambda:InvokeFunctionUrl", "lambda:UpdateFunctionCode"])
            return row(f.name, r.region, open.length === 0, open.length === 0 ? `Function ${f.name} is not public.` : `Function ${f.name} can be invoked by anyone.`, {
              public_statements: open.map((s, i) => s.sid ?? `#${i + 1}`),
            })
          }),
      ),
  }),
  defineCheck({
    id: "awslambda_function_url_public",
    service: "lambda",
    title: "Lambda function URLs should require IAM authentication",
    description: "Finds functions with a function URL whose AuthType is NONE (anyone on the internet can call it).",
    severity: "high",
    cis: {},
    remediation: "aws lambda update-function-url-config --function-name F --auth-type AWS_IAM (callers must then sign requests), or delete the URL.",
    field_labels: { url: "Function URL", auth_type: "Auth type" },
    uses: ["lambda.functions", "lambda.urls"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.lambda.regions.flatMap((r) =>
        (r.functions ?? [])
          .filter((f) => f.url !== undefined && f.url !== null)
          .map((f) => {
            const ok = f.url?.authType !== "NONE"
            return row(f.name, r.region, ok, ok ? `Function URL of ${f.name} requires ${f.url?.authType}.` : `Function URL of ${f.name} is open to anyone (AuthType NONE).`, {
              url: f.url?.url ?? null,
              auth_type: f.url?.authType ?? null,
            })
          }),
      ),
  }),
  defineCheck({
    id: "awslambda_function_using_supported_runtimes",
    service: "lambda",
    title: "Lambda functions should use supported runtimes",
    description: "Finds zip-packaged functions on a runtime past its deprecation date.",
    severity: "medium",
    cis: {},
    fsbp: "Lambda.2",
    remediation: "Upgrade the function code to a supported runtime and update it: aws lambda update-function-configuration --function-name F --runtime RUNTIME.",
    field_labels: { runtime: "Runtime", deprecated_on: "Deprecated on" },
    uses: ["lambda.functions"],
    testedWith: "moto",
    evaluate: (inv, env) =>
      inv.lambda.regions.flatMap((r) =>
        (r.functions ?? [])
          .filter((f) => f.packageType === "Zip" && f.runtime !== undefined)
          .map((f) => {
            const date = RUNTIME_DEPRECATION[f.runtime ?? ""]
            const deprecated = date !== undefined && new Date(`${date}T00:00:00Z`).getTime() <= env.now.getTime()
            return row(f.name, r.region, !deprecated, deprecated ? `Function ${f.name} runs on ${f.runtime}, deprecated since ${date}.` : `Function ${f.name} runs on the supported runtime ${f.runtime}.`, {
              runtime: f.runtime ?? null,
              deprecated_on: date ?? null,
            })
          }),
      ),
  }),
  fnCheck({
    id: "awslambda_function_log_group_exists",
    title: "Lambda functions should have a CloudWatch Logs log group",
    description: "Finds functions whose log group (/aws/lambda/NAME, or the one set in the logging configuration) does not exist: the function either never ran or cannot write logs, so its activity is invisible.",
    severity: "medium",
    remediation: "aws logs create-log-group --log-group-name /aws/lambda/NAME and set a retention; make sure the execution role allows logs:CreateLogStream and logs:PutLogEvents.",
    labels: { log_group: "Log group" },
    uses: ["lambda.functions", "lambda.log_groups"],
    judge: (f) =>
      f.logGroupExists === undefined
        ? undefined
        : { ok: f.logGroupExists, reason: f.logGroupExists ? `Function ${f.name} logs to ${f.logGroup}.` : `Log group ${f.logGroup} of function ${f.name} does not exist.`, fields: { log_group: f.logGroup } },
  }),
  fnCheck({
    id: "awslambda_function_tracing_enabled",
    title: "Lambda functions should have active X-Ray tracing",
    description: "Finds functions whose tracing mode is not Active, so requests through them cannot be traced end to end during an investigation.",
    severity: "low",
    remediation: "aws lambda update-function-configuration --function-name NAME --tracing-config Mode=Active (the role needs xray:PutTraceSegments).",
    labels: { tracing_mode: "Tracing mode" },
    uses: ["lambda.functions"],
    judge: (f) => ({ ok: f.tracingMode === "Active", reason: f.tracingMode === "Active" ? `Function ${f.name} is traced.` : `Function ${f.name} has tracing mode ${f.tracingMode}.`, fields: { tracing_mode: f.tracingMode } }),
  }),
  fnCheck({
    id: "awslambda_function_dead_letter_queue_configured",
    title: "Lambda functions should keep failed asynchronous events",
    description: "Finds functions with neither a dead-letter queue nor an on-failure destination: events whose processing fails after the retries are silently dropped.",
    severity: "low",
    remediation: "aws lambda update-function-configuration --function-name NAME --dead-letter-config TargetArn=QUEUE_OR_TOPIC_ARN, or aws lambda put-function-event-invoke-config --function-name NAME --destination-config OnFailure={Destination=ARN}.",
    labels: { dead_letter_target: "Dead-letter target", on_failure: "On-failure destination" },
    uses: ["lambda.functions", "lambda.event_invoke"],
    judge: (f) => {
      if (f.onFailureDestination === undefined && f.deadLetterArn === undefined) return undefined
      const ok = f.deadLetterArn !== undefined || (f.onFailureDestination ?? null) !== null
      return {
        ok,
        reason: ok ? `Failed events of ${f.name} go to ${f.deadLetterArn ?? f.onFailureDestination}.` : `Function ${f.name} drops events that fail asynchronous processing.`,
        fields: { dead_letter_target: f.deadLetterArn ?? null, on_failure: f.onFailureDestination ?? null },
      }
    },
  }),
  fnCheck({
    id: "awslambda_function_inside_vpc",
    title: "Lambda functions should run inside a VPC",
    description: "Finds functions not attached to a VPC, whose network traffic cannot be filtered by security groups, network ACLs or VPC endpoints.",
    severity: "low",
    fsbp: "Lambda.3",
    remediation: "aws lambda update-function-configuration --function-name NAME --vpc-config SubnetIds=SUBNETS,SecurityGroupIds=GROUPS (private subnets with a NAT gateway or VPC endpoints for the AWS APIs the function calls).",
    labels: { vpc_id: "VPC" },
    uses: ["lambda.functions"],
    judge: (f) => ({ ok: f.vpcId !== undefined, reason: f.vpcId !== undefined ? `Function ${f.name} runs in ${f.vpcId}.` : `Function ${f.name} is not attached to a VPC.`, fields: { vpc_id: f.vpcId ?? null } }),
  }),
  fnCheck({
    id: "awslambda_function_code_signing_enabled",
    title: "Lambda functions should enforce code signing",
    description: "Finds zip-packaged functions without a code signing configuration, so code that was not signed by a trusted publisher can be deployed.",
    severity: "low",
    remediation: "Create a signing profile (AWS Signer) and a code signing configuration that enforces it, then aws lambda put-function-code-signing-config --function-name NAME --code-signing-config-arn ARN.",
    labels: { code_signing_config: "Code signing configuration" },
    uses: ["lambda.functions", "lambda.code_signing"],
    judge: (f) =>
      f.codeSigningConfigArn === undefined || f.packageType !== "Zip"
        ? undefined
        : {
            ok: f.codeSigningConfigArn !== null,
            reason: f.codeSigningConfigArn !== null ? `Function ${f.name} enforces ${f.codeSigningConfigArn}.` : `Function ${f.name} accepts unsigned code.`,
            fields: { code_signing_config: f.codeSigningConfigArn },
          },
  }),
  fnCheck({
    id: "awslambda_function_no_secrets_in_variables",
    title: "Lambda environment variables should not hold secrets",
    description: "Finds functions with environment variables named like credentials (password, secret, token, API or access key) whose value is not a reference (ARN, SSM parameter): anyone with lambda:GetFunctionConfiguration can read them.",
    severity: "high",
    remediation: "Move the values to Secrets Manager or SSM Parameter Store (SecureString), keep only their names/ARNs in the variables, and rotate the exposed credentials.",
    labels: { variables: "Suspicious variables" },
    uses: ["lambda.functions"],
    judge: (f) => ({
      ok: f.secretLikeVars.length === 0,
      reason: f.secretLikeVars.length === 0 ? `Function ${f.name} has no credential-like environment variable.` : `Function ${f.name} stores ${f.secretLikeVars.join(", ")} in its environment.`,
      fields: { variables: f.secretLikeVars },
    }),
  }),
  defineCheck({
    id: "awslambda_function_unique_execution_role",
    service: "lambda",
    title: "Lambda functions should not share an execution role",
    description: "Finds functions whose execution role is also used by other functions (in any scanned region): each then holds the union of the permissions all of them need.",
    severity: "low",
    cis: {},
    remediation: "Create one role per function with only the permissions that function needs and switch it: aws lambda update-function-configuration --function-name NAME --role ROLE_ARN.",
    field_labels: { role: "Execution role", shared_with: "Shared with" },
    uses: ["lambda.functions"],
    testedWith: "moto",
    evaluate: (inv) => {
      const byRole = new Map<string, string[]>()
      for (const r of inv.lambda.regions) for (const f of r.functions ?? []) byRole.set(f.role, [...(byRole.get(f.role) ?? []), `${f.name} (${r.region})`])
      return inv.lambda.regions.flatMap((r) =>
        (r.functions ?? []).map((f) => {
          const others = (byRole.get(f.role) ?? []).filter((x) => x !== `${f.name} (${r.region})`)
          return row(f.name, r.region, others.length === 0, others.length === 0 ? `Function ${f.name} has its own role.` : `Function ${f.name} shares ${f.role} with ${others.join(", ")}.`, {
            role: f.role,
            shared_with: others,
          })
        }),
      )
    },
  }),
]
