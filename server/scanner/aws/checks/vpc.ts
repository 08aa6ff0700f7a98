/** VPC checks (CIS AWS v3.0 3.7 / v7.0 4.7, FSBP EC2.6 and EC2.15). */
import { defineCheck, row } from "../define-check.ts"

export const vpcChecks = [
  defineCheck({
    id: "vpc_flow_logs_enabled",
    service: "vpc",
    title: "VPC flow logging should be enabled in all VPCs",
    description: "Checks that each VPC has an active flow log capturing rejected (or all) traffic.",
    severity: "medium",
    cis: { v3: "3.7", v7: "4.7" },
    fsbp: "EC2.6",
    remediation: "Create a flow log for the VPC with traffic type REJECT or ALL, delivered to CloudWatch Logs or S3 (aws ec2 create-flow-logs --resource-type VPC --resource-ids VPC --traffic-type REJECT ...).",
    field_labels: { is_default: "Default VPC", flow_logs: "Flow logs" },
    uses: ["ec2.vpcs", "ec2.flow_logs"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.ec2.regions.flatMap((r) => {
        if (r.vpcs === undefined || r.flowLogs === undefined) return []
        const flows = r.flowLogs
        return r.vpcs.map((v) => {
          const logs = flows.filter((f) => f.resourceId === v.id && (f.trafficType === "ALL" || f.trafficType === "REJECT") && f.status !== "FAILED")
          return row(v.id, r.region, logs.length > 0, logs.length > 0 ? `VPC ${v.id} has flow log(s) ${logs.map((f) => `${f.id} (${f.trafficType})`).join(", ")}.` : `VPC ${v.id} has no flow log capturing rejected traffic.`, {
            is_default: v.isDefault,
            flow_logs: logs.map((f) => f.id),
          })
        })
      }),
  }),
  defineCheck({
    id: "vpc_subnet_no_public_ip_by_default",
    service: "vpc",
    title: "VPC subnets should not automatically assign public IP addresses",
    description: "Finds subnets that give every launched instance a public IPv4 address (MapPublicIpOnLaunch).",
    severity: "medium",
    cis: {},
    fsbp: "EC2.15",
    remediation: "aws ec2 modify-subnet-attribute --subnet-id SUBNET --no-map-public-ip-on-launch; assign public addresses explicitly where needed.",
    field_labels: { vpc_id: "VPC", default_for_az: "Default subnet", map_public_ip: "Auto-assign public IP" },
    uses: ["ec2.subnets"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.ec2.regions.flatMap((r) =>
        (r.subnets ?? []).map((s) =>
          row(s.id, r.region, !s.mapPublicIpOnLaunch, s.mapPublicIpOnLaunch ? `Subnet ${s.id} auto-assigns public IPs.` : `Subnet ${s.id} does not auto-assign public IPs.`, {
            vpc_id: s.vpcId ?? null,
            default_for_az: s.defaultForAz,
            map_public_ip: s.mapPublicIpOnLaunch,
          }),
        ),
      ),
  }),
]
