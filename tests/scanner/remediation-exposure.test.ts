/** Exposure fixers on moto: every service-port revoke and the open-egress revoke, fail -> fix -> re-collect -> pass. */
import { afterAll, beforeAll, describe, it } from "vitest"
import { AuthorizeSecurityGroupIngressCommand, CreateSecurityGroupCommand, CreateVpcCommand } from "@aws-sdk/client-ec2"
import { SERVICE_PORTS } from "../../server/scanner/aws/checks/ec2.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { expectFixed, seedClients } from "./helpers.ts"

const E = "us-east-1"
const FIXED = [
  "ec2_securitygroup_allow_ingress_from_internet_to_redis",
  "ec2_securitygroup_allow_ingress_from_internet_to_mongodb",
  "ec2_securitygroup_allow_ingress_from_internet_to_memcached",
  "ec2_securitygroup_allow_ingress_from_internet_to_cassandra",
  "ec2_securitygroup_allow_ingress_from_internet_to_docker",
  "ec2_securitygroup_allow_ingress_from_internet_to_oracle",
  "ec2_securitygroup_allow_ingress_from_internet_to_vnc",
  "ec2_securitygroup_allow_ingress_from_internet_to_dns",
  "ec2_securitygroup_allow_ingress_from_internet_to_ldap",
  "ec2_securitygroup_allow_ingress_from_internet_to_ldaps",
  "ec2_securitygroup_allow_ingress_from_internet_to_mysql",
  "ec2_securitygroup_allow_ingress_from_internet_to_postgresql",
  "ec2_securitygroup_allow_ingress_from_internet_to_sqlserver",
  "ec2_securitygroup_allow_ingress_from_internet_to_elasticsearch",
  "ec2_securitygroup_allow_ingress_from_internet_to_kafka",
  "ec2_securitygroup_allow_ingress_from_internet_to_zookeeper",
  "ec2_securitygroup_allow_ingress_from_internet_to_rabbitmq",
  "ec2_securitygroup_allow_ingress_from_internet_to_couchdb",
  "ec2_securitygroup_allow_ingress_from_internet_to_etcd",
  "ec2_securitygroup_allow_ingress_from_internet_to_kubernetes",
  "ec2_securitygroup_allow_ingress_from_internet_to_nfs",
  "ec2_securitygroup_allow_ingress_from_internet_to_telnet",
  "ec2_securitygroup_allow_ingress_from_internet_to_ftp",
  "ec2_securitygroup_allow_ingress_from_internet_to_smtp",
  "ec2_securitygroup_allow_ingress_from_internet_to_netbios",
  "ec2_securitygroup_allow_ingress_from_internet_to_rpc",
  "ec2_securitygroup_allow_ingress_from_internet_to_snmp",
  "ec2_securitygroup_allow_ingress_from_internet_to_salt",
  "ec2_securitygroup_allow_ingress_from_internet_to_hadoop",
  "ec2_securitygroup_allow_ingress_from_internet_to_prometheus",
]

describe("exposure fixers on moto", () => {
  let moto: Moto
  const groups: Record<string, string> = {}

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)
    const ec2 = c.get("ec2", E)
    const vpc = (await ec2.send(new CreateVpcCommand({ CidrBlock: "10.40.0.0/16" }))).Vpc?.VpcId
    for (const svc of SERVICE_PORTS) {
      const g = await ec2.send(new CreateSecurityGroupCommand({ GroupName: `fix-${svc.key}`, Description: svc.key, VpcId: vpc }))
      // every port of the service, from both internet ranges, plus a private source that must survive the fix
      await ec2.send(
        new AuthorizeSecurityGroupIngressCommand({
          GroupId: g.GroupId,
          IpPermissions: svc.ports.map((p) => ({ IpProtocol: p.proto, FromPort: p.port, ToPort: p.port, IpRanges: [{ CidrIp: "0.0.0.0/0" }, { CidrIp: "10.40.0.0/16" }], Ipv6Ranges: [{ CidrIpv6: "::/0" }] })),
        }),
      )
      groups[svc.key] = g.GroupId ?? ""
    }
    c.destroy()
  })
  afterAll(async () => {
    await moto?.stop()
  })

  it("revokes the internet sources of every service port", async () => {
    for (const [i, svc] of SERVICE_PORTS.entries()) await expectFixed(moto, "ec2", FIXED[i] ?? "", groups[svc.key] ?? "")
  })

  it("revokes an allow-all outbound rule", async () => {
    await expectFixed(moto, "ec2", "ec2_securitygroup_egress_unrestricted", groups["redis"] ?? "")
  })
})
