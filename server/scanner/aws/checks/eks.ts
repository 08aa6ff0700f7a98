/** EKS checks (FSBP EKS.1, EKS.3, EKS.8). */
import { defineCheck, row } from "../define-check.ts"

export const EKS_LOG_TYPES: ReadonlyArray<string> = ["api", "audit", "authenticator", "controllerManager", "scheduler"]

export const eksChecks = [
  defineCheck({
    id: "eks_cluster_not_publicly_accessible",
    service: "eks",
    title: "EKS cluster endpoints should not be publicly accessible",
    description: "Finds clusters whose Kubernetes API endpoint is reachable from 0.0.0.0/0.",
    severity: "high",
    cis: {},
    fsbp: "EKS.1",
    remediation: "aws eks update-cluster-config --name C --resources-vpc-config endpointPrivateAccess=true,endpointPublicAccess=false (or restrict publicAccessCidrs) — kubectl outside the VPC loses access.",
    field_labels: { public_endpoint: "Public endpoint", public_cidrs: "Public access CIDRs" },
    uses: ["eks.clusters"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.eks.regions.flatMap((r) =>
        (r.clusters ?? []).map((c) => {
          const open = c.endpointPublicAccess && c.publicAccessCidrs.includes("0.0.0.0/0")
          return row(c.name, r.region, !open, open ? `Cluster ${c.name}'s API endpoint is open to the internet.` : `Cluster ${c.name}'s API endpoint is private or restricted.`, {
            public_endpoint: c.endpointPublicAccess,
            public_cidrs: c.publicAccessCidrs,
          })
        }),
      ),
  }),
  defineCheck({
    id: "eks_control_plane_logging_all_types_enabled",
    service: "eks",
    title: "EKS clusters should have control plane audit logging enabled",
    description: `Finds clusters that do not send all control plane log types (${EKS_LOG_TYPES.join(", ")}) to CloudWatch Logs.`,
    severity: "medium",
    cis: {},
    fsbp: "EKS.8",
    remediation: `aws eks update-cluster-config --name C --logging '{"clusterLogging":[{"types":${JSON.stringify(EKS_LOG_TYPES)},"enabled":true}]}'.`,
    field_labels: { missing_log_types: "Missing log types" },
    uses: ["eks.clusters"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.eks.regions.flatMap((r) =>
        (r.clusters ?? []).map((c) => {
          const missing = EKS_LOG_TYPES.filter((t) => !c.enabledLogTypes.includes(t))
          return row(c.name, r.region, missing.length === 0, missing.length === 0 ? `Cluster ${c.name} logs every control plane component.` : `Cluster ${c.name} does not log ${missing.join(", ")}.`, {
            missing_log_types: missing,
          })
        }),
      ),
  }),
  defineCheck({
    id: "eks_cluster_secrets_encryption_enabled",
    service: "eks",
    title: "EKS clusters should use encrypted Kubernetes secrets",
    description: "Finds clusters without envelope encryption of Kubernetes secrets with a KMS key.",
    severity: "medium",
    cis: {},
    fsbp: "EKS.3",
    remediation: "aws eks associate-encryption-config --cluster-name C --encryption-config '[{\"resources\":[\"secrets\"],\"provider\":{\"keyArn\":\"KEY_ARN\"}}]'.",
    field_labels: { secrets_encrypted: "Secrets encrypted" },
    uses: ["eks.clusters"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.eks.regions.flatMap((r) =>
        (r.clusters ?? []).map((c) =>
          row(c.name, r.region, c.secretsEncrypted, c.secretsEncrypted ? `Cluster ${c.name} encrypts secrets with KMS.` : `Cluster ${c.name} does not encrypt secrets with KMS.`, { secrets_encrypted: c.secretsEncrypted }),
        ),
      ),
  }),
]
