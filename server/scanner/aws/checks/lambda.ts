/** Lambda checks (FSBP Lambda.1, Lambda.2; public function URLs). */
import { defineCheck, row } from "../define-check.ts"
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
]
