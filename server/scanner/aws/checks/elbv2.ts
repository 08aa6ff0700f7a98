/** ELBv2 checks (FSBP ELB.1, ELB.4, ELB.5, ELB.6, ELB.17). Absent attributes are at their AWS default (moto returns only a few). */
import type { LoadBalancer } from "../collectors/elbv2.ts"
import { defineCheck, row } from "../define-check.ts"

/** TLS 1.2+ only policies: the TLS13-1-2/1-3, TLS-1-2 and FS-1-2 families. */
export const isModernTlsPolicy = (name: string | undefined) => name !== undefined && /TLS13-1-[23]|TLS-1-2|FS-1-2/.test(name)

const attributeCheck = (spec: {
  readonly id: string
  readonly title: string
  readonly description: string
  readonly severity: "medium" | "low"
  readonly fsbp: string
  readonly key: string
  readonly applies: (lb: LoadBalancer) => boolean
  readonly remediation: string
  readonly pass: string
  readonly fail: string
}) =>
  defineCheck({
    id: spec.id,
    service: "elbv2",
    title: spec.title,
    description: spec.description,
    severity: spec.severity,
    cis: {},
    fsbp: spec.fsbp,
    remediation: spec.remediation,
    field_labels: { type: "Type", setting: spec.key },
    uses: ["elbv2.load_balancers", "elbv2.attributes"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.elbv2.regions.flatMap((r) =>
        (r.loadBalancers ?? [])
          .filter((lb) => lb.attributes !== undefined && spec.applies(lb))
          .map((lb) => {
            const value = lb.attributes?.[spec.key] ?? "false"
            const ok = value === "true"
            return row(lb.name, r.region, ok, `Load balancer ${lb.name} ${ok ? spec.pass : spec.fail}.`, { type: lb.type, setting: value })
          }),
      ),
  })

export const elbv2Checks = [
  defineCheck({
    id: "elbv2_listeners_https_or_redirect",
    service: "elbv2",
    title: "Application Load Balancers should redirect all HTTP requests to HTTPS",
    description: "Finds ALBs with an HTTP listener whose default action is not a redirect to HTTPS.",
    severity: "medium",
    cis: {},
    fsbp: "ELB.1",
    remediation: "Change each HTTP listener's default action to redirect to HTTPS (port 443, status HTTP_301).",
    field_labels: { plain_http_listeners: "Plain HTTP listeners" },
    uses: ["elbv2.load_balancers", "elbv2.listeners"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.elbv2.regions.flatMap((r) =>
        (r.loadBalancers ?? [])
          .filter((lb) => lb.type === "application" && lb.listeners !== undefined)
          .map((lb) => {
            const plain = (lb.listeners ?? []).filter((l) => l.protocol === "HTTP" && !l.defaultActions.includes("redirect:HTTPS")).map((l) => `HTTP:${l.port ?? ""}`)
            return row(lb.name, r.region, plain.length === 0, plain.length === 0 ? `Load balancer ${lb.name} serves no plain HTTP.` : `Load balancer ${lb.name} serves plain HTTP on ${plain.join(", ")}.`, {
              plain_http_listeners: plain,
            })
          }),
      ),
  }),
  defineCheck({
    id: "elbv2_ssl_listeners_use_tls12",
    service: "elbv2",
    title: "Load balancer TLS listeners should use a TLS 1.2+ security policy",
    description: "Finds HTTPS/TLS listeners whose security policy still negotiates TLS 1.0 or 1.1.",
    severity: "medium",
    cis: {},
    fsbp: "ELB.17",
    remediation: "aws elbv2 modify-listener --listener-arn ARN --ssl-policy ELBSecurityPolicy-TLS13-1-2-2021-06.",
    field_labels: { weak_listeners: "Listeners with weak policies" },
    uses: ["elbv2.load_balancers", "elbv2.listeners"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.elbv2.regions.flatMap((r) =>
        (r.loadBalancers ?? []).flatMap((lb) => {
          const tls = (lb.listeners ?? []).filter((l) => l.protocol === "HTTPS" || l.protocol === "TLS")
          if (tls.length === 0) return []
          const weak = tls.filter((l) => !isModernTlsPolicy(l.sslPolicy)).map((l) => `${l.protocol}:${l.port ?? ""} (${l.sslPolicy ?? "no policy"})`)
          return [row(lb.name, r.region, weak.length === 0, weak.length === 0 ? `Load balancer ${lb.name} negotiates TLS 1.2 or newer only.` : `Load balancer ${lb.name} allows old TLS on ${weak.join(", ")}.`, { weak_listeners: weak })]
        }),
      ),
  }),
  attributeCheck({
    id: "elbv2_deletion_protection",
    title: "Load balancers should have deletion protection enabled",
    description: "Finds application, network and gateway load balancers that can be deleted without first disabling deletion protection.",
    severity: "medium",
    fsbp: "ELB.6",
    key: "deletion_protection.enabled",
    applies: () => true,
    remediation: "aws elbv2 modify-load-balancer-attributes --load-balancer-arn ARN --attributes Key=deletion_protection.enabled,Value=true.",
    pass: "has deletion protection",
    fail: "has no deletion protection",
  }),
  attributeCheck({
    id: "elbv2_logging_enabled",
    title: "Load balancers should have access logging enabled",
    description: "Finds load balancers that do not write access logs to S3.",
    severity: "medium",
    fsbp: "ELB.5",
    key: "access_logs.s3.enabled",
    applies: () => true,
    remediation: "aws elbv2 modify-load-balancer-attributes --load-balancer-arn ARN --attributes Key=access_logs.s3.enabled,Value=true Key=access_logs.s3.bucket,Value=BUCKET.",
    pass: "writes access logs",
    fail: "does not write access logs",
  }),
  attributeCheck({
    id: "elbv2_drop_invalid_header_fields",
    title: "Application Load Balancers should drop invalid HTTP headers",
    description: "Finds ALBs that pass requests with invalid header fields to targets (HTTP desync risk).",
    severity: "medium",
    fsbp: "ELB.4",
    key: "routing.http.drop_invalid_header_fields.enabled",
    applies: (lb) => lb.type === "application",
    remediation: "aws elbv2 modify-load-balancer-attributes --load-balancer-arn ARN --attributes Key=routing.http.drop_invalid_header_fields.enabled,Value=true.",
    pass: "drops invalid header fields",
    fail: "forwards invalid header fields",
  }),
]
