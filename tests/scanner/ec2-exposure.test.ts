/**
 * Internet exposure of database, cache, broker, directory and remote-control ports, open egress and network ACLs
 * (issue 16 misses: Redis, MongoDB, Memcached, Cassandra, Docker, Oracle, VNC, DNS, LDAP; egress open to everything).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  AuthorizeSecurityGroupEgressCommand,
  AuthorizeSecurityGroupIngressCommand,
  CreateNetworkAclCommand,
  CreateSecurityGroupCommand,
  CreateVpcCommand,
  DescribeNetworkAclsCommand,
  RevokeSecurityGroupEgressCommand,
  type EC2Client,
} from "@aws-sdk/client-ec2"
import type { ScanServiceResult } from "../../server/scanner/aws/scan-service.ts"
import { SERVICE_PORTS } from "../../server/scanner/aws/checks/ec2.ts"
import { startMoto, type Moto } from "../support/moto.ts"
import { expectCases, rowFor, scan, seedClients } from "./helpers.ts"

const E = "us-east-1"

/** Literal ids (the catalogue test looks every check up by name in a test). */
export const SERVICE_PORT_CHECKS: Readonly<Record<string, string>> = {
  redis: "ec2_securitygroup_allow_ingress_from_internet_to_redis",
  mongodb: "ec2_securitygroup_allow_ingress_from_internet_to_mongodb",
  memcached: "ec2_securitygroup_allow_ingress_from_internet_to_memcached",
  cassandra: "ec2_securitygroup_allow_ingress_from_internet_to_cassandra",
  docker: "ec2_securitygroup_allow_ingress_from_internet_to_docker",
  oracle: "ec2_securitygroup_allow_ingress_from_internet_to_oracle",
  vnc: "ec2_securitygroup_allow_ingress_from_internet_to_vnc",
  dns: "ec2_securitygroup_allow_ingress_from_internet_to_dns",
  ldap: "ec2_securitygroup_allow_ingress_from_internet_to_ldap",
  ldaps: "ec2_securitygroup_allow_ingress_from_internet_to_ldaps",
  mysql: "ec2_securitygroup_allow_ingress_from_internet_to_mysql",
  postgresql: "ec2_securitygroup_allow_ingress_from_internet_to_postgresql",
  sqlserver: "ec2_securitygroup_allow_ingress_from_internet_to_sqlserver",
  elasticsearch: "ec2_securitygroup_allow_ingress_from_internet_to_elasticsearch",
  kafka: "ec2_securitygroup_allow_ingress_from_internet_to_kafka",
  zookeeper: "ec2_securitygroup_allow_ingress_from_internet_to_zookeeper",
  rabbitmq: "ec2_securitygroup_allow_ingress_from_internet_to_rabbitmq",
  couchdb: "ec2_securitygroup_allow_ingress_from_internet_to_couchdb",
  etcd: "ec2_securitygroup_allow_ingress_from_internet_to_etcd",
  kubernetes: "ec2_securitygroup_allow_ingress_from_internet_to_kubernetes",
  nfs: "ec2_securitygroup_allow_ingress_from_internet_to_nfs",
  telnet: "ec2_securitygroup_allow_ingress_from_internet_to_telnet",
  ftp: "ec2_securitygroup_allow_ingress_from_internet_to_ftp",
  smtp: "ec2_securitygroup_allow_ingress_from_internet_to_smtp",
  netbios: "ec2_securitygroup_allow_ingress_from_internet_to_netbios",
  rpc: "ec2_securitygroup_allow_ingress_from_internet_to_rpc",
  snmp: "ec2_securitygroup_allow_ingress_from_internet_to_snmp",
  salt: "ec2_securitygroup_allow_ingress_from_internet_to_salt",
  hadoop: "ec2_securitygroup_allow_ingress_from_internet_to_hadoop",
  prometheus: "ec2_securitygroup_allow_ingress_from_internet_to_prometheus",
}


async function group(ec2: EC2Client, vpcId: string, name: string, perms: ReadonlyArray<{ proto: string; from: number; to: number; v4?: string[]; v6?: string }>) {
  const g = await ec2.send(new CreateSecurityGroupCommand({ GroupName: name, Description: name, VpcId: vpcId }))
  if (perms.length > 0) {
    await ec2.send(
      new AuthorizeSecurityGroupIngressCommand({
        GroupId: g.GroupId,
        IpPermissions: perms.map((p) => ({
          IpProtocol: p.proto,
          FromPort: p.from,
          ToPort: p.to,
          ...(p.v4 === undefined ? {} : { IpRanges: p.v4.map((CidrIp) => ({ CidrIp })) }),
          ...(p.v6 === undefined ? {} : { Ipv6Ranges: [{ CidrIpv6: p.v6 }] }),
        })),
      }),
    )
  }
  return g.GroupId ?? ""
}

describe("EC2 service-port exposure, egress and network ACL checks on moto", () => {
  let moto: Moto
  let result: ScanServiceResult
  const ids: Record<string, string> = {}
  const id = (k: string) => ids[k] ?? ""

  beforeAll(async () => {
    moto = await startMoto()
    const c = seedClients(moto)
    const ec2 = c.get("ec2", E)
    ids.vpc = (await ec2.send(new CreateVpcCommand({ CidrBlock: "10.30.0.0/16" }))).Vpc?.VpcId ?? ""
    // One group per service, open on the service's first port; every third one over IPv6 instead of IPv4.
    for (const [i, svc] of SERVICE_PORTS.entries()) {
      const p = svc.ports[0]!
      ids[svc.key] = await group(ec2, id("vpc"), `open-${svc.key}`, [{ proto: p.proto, from: p.port, to: p.port, ...(i % 3 === 2 ? { v6: "::/0" } : { v4: ["0.0.0.0/0"] }) }])
    }
    // UDP-only DNS (the common case) and a port range that swallows Redis.
    ids.dnsUdp = await group(ec2, id("vpc"), "dns-udp", [{ proto: "udp", from: 53, to: 53, v4: ["0.0.0.0/0"] }])
    ids.range = await group(ec2, id("vpc"), "range", [{ proto: "tcp", from: 6000, to: 7000, v4: ["0.0.0.0/0"] }])
    // Compliant: HTTPS from anywhere, databases only from the VPC, outbound only HTTPS.
    ids.web = await group(ec2, id("vpc"), "web", [
      { proto: "tcp", from: 443, to: 443, v4: ["0.0.0.0/0"], v6: "::/0" },
      { proto: "tcp", from: 0, to: 65535, v4: ["10.30.0.0/16"] },
      { proto: "udp", from: 53, to: 53, v4: ["10.30.0.0/16"] },
    ])
    await ec2.send(new RevokeSecurityGroupEgressCommand({ GroupId: id("web"), IpPermissions: [{ IpProtocol: "-1", IpRanges: [{ CidrIp: "0.0.0.0/0" }] }] }))
    await ec2.send(new AuthorizeSecurityGroupEgressCommand({ GroupId: id("web"), IpPermissions: [{ IpProtocol: "tcp", FromPort: 443, ToPort: 443, IpRanges: [{ CidrIp: "0.0.0.0/0" }] }] }))
    ids.wizard = await group(ec2, id("vpc"), "launch-wizard-3", [])
    ids.many = await group(ec2, id("vpc"), "many", [{ proto: "tcp", from: 8443, to: 8443, v4: Array.from({ length: 51 }, (_, i) => `10.1.${i}.0/24`) }])
    ids.acl = (await ec2.send(new CreateNetworkAclCommand({ VpcId: id("vpc") }))).NetworkAcl?.NetworkAclId ?? ""
    const acls = await ec2.send(new DescribeNetworkAclsCommand({ Filters: [{ Name: "vpc-id", Values: [id("vpc")] }, { Name: "default", Values: ["true"] }] }))
    ids.defaultAcl = acls.NetworkAcls?.[0]?.NetworkAclId ?? ""
    c.destroy()
    result = await scan(moto, "ec2", { regions: [E] })
  })
  afterAll(async () => {
    await moto?.stop()
  })

  it("one check per service port: the open group fails, the web group passes", () => {
    expect(Object.keys(SERVICE_PORT_CHECKS)).toEqual(SERVICE_PORTS.map((s) => s.key))
    for (const svc of SERVICE_PORTS) {
      expectCases(result, SERVICE_PORT_CHECKS[svc.key] ?? "", { compliant: [id("web")], nonCompliant: [id(svc.key)] })
    }
    // the Redis group does not trip the MongoDB check, and vice versa
    expectCases(result, "ec2_securitygroup_allow_ingress_from_internet_to_mongodb", { compliant: [id("redis")] })
    expectCases(result, "ec2_securitygroup_allow_ingress_from_internet_to_redis", { compliant: [id("mongodb")], nonCompliant: [id("range")] })
    expect(rowFor(result, "ec2_securitygroup_allow_ingress_from_internet_to_redis", id("redis")).exposed).toEqual(["tcp/6379 from 0.0.0.0/0"])
  })

  it("DNS, LDAP and Memcached are checked on UDP too", () => {
    expectCases(result, "ec2_securitygroup_allow_ingress_from_internet_to_dns", { nonCompliant: [id("dnsUdp")] })
    expect(rowFor(result, "ec2_securitygroup_allow_ingress_from_internet_to_dns", id("dnsUdp")).exposed).toEqual(["udp/53 from 0.0.0.0/0"])
    expectCases(result, "ec2_securitygroup_allow_ingress_from_internet_to_ldap", { compliant: [id("dnsUdp")] })
  })

  it("non-web internet ports, open egress, launch-wizard groups, rule count", () => {
    expectCases(result, "ec2_securitygroup_allow_ingress_from_internet_to_non_web_ports", { compliant: [id("web"), id("wizard")], nonCompliant: [id("redis"), id("dnsUdp")] })
    expectCases(result, "ec2_securitygroup_egress_unrestricted", { compliant: [id("web")], nonCompliant: [id("redis"), id("wizard")] })
    expectCases(result, "ec2_securitygroup_from_launch_wizard", { compliant: [id("web")], nonCompliant: [id("wizard")] })
    expectCases(result, "ec2_securitygroup_with_many_rules", { compliant: [id("web")], nonCompliant: [id("many")] })
  })

  it("network ACLs allowing all inbound or outbound traffic", () => {
    expectCases(result, "ec2_networkacl_allow_ingress_any_port", { compliant: [id("acl")], nonCompliant: [id("defaultAcl")] })
    expectCases(result, "ec2_networkacl_allow_egress_all_traffic", { compliant: [id("acl")], nonCompliant: [id("defaultAcl")] })
  })

})
