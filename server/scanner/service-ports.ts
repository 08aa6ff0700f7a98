/**
 * Network services that should never answer the whole internet, with their well-known default ports: one exposure
 * check each per provider (AWS security groups and network ACLs, GCP firewall rules, Azure NSGs), so a finding names
 * the service. Provider-neutral: each provider decides whether its rules cover a `PortSpec`.
 */

/** A port of a network service: protocol and number. */
export interface PortSpec {
  readonly proto: "tcp" | "udp"
  readonly port: number
}

export interface ServicePorts {
  /** Check-id suffix, e.g. "redis". */
  readonly key: string
  readonly name: string
  readonly ports: ReadonlyArray<PortSpec>
  readonly severity: "critical" | "high" | "medium"
}

/** "tcp/6379, udp/11211". */
export const describePorts = (ports: ReadonlyArray<PortSpec>): string => ports.map((p) => `${p.proto}/${p.port}`).join(", ")

export const tcp = (...ports: number[]): PortSpec[] => ports.map((port) => ({ proto: "tcp", port }))
export const udp = (...ports: number[]): PortSpec[] => ports.map((port) => ({ proto: "udp", port }))

/**
 * Database, cache, message-broker, directory and remote-control services that should never answer the whole
 * internet; one check each, so a finding names the service. Ports are the services' well-known defaults.
 */
export const SERVICE_PORTS: ReadonlyArray<ServicePorts> = [
  { key: "redis", name: "Redis", ports: tcp(6379), severity: "high" },
  { key: "mongodb", name: "MongoDB", ports: tcp(27017, 27018, 27019), severity: "high" },
  { key: "memcached", name: "Memcached", ports: [...tcp(11211), ...udp(11211)], severity: "high" },
  { key: "cassandra", name: "Cassandra", ports: tcp(7000, 7001, 7199, 9042, 9160), severity: "high" },
  { key: "docker", name: "the Docker daemon API", ports: tcp(2375, 2376), severity: "critical" },
  { key: "oracle", name: "Oracle Database", ports: tcp(1521, 2483, 2484), severity: "high" },
  { key: "vnc", name: "VNC", ports: tcp(5500, 5800, 5900, 5901), severity: "high" },
  { key: "dns", name: "DNS", ports: [...tcp(53), ...udp(53)], severity: "medium" },
  { key: "ldap", name: "LDAP", ports: [...tcp(389), ...udp(389)], severity: "high" },
  { key: "ldaps", name: "LDAP over TLS", ports: tcp(636), severity: "medium" },
  { key: "mysql", name: "MySQL/MariaDB", ports: tcp(3306), severity: "high" },
  { key: "postgresql", name: "PostgreSQL", ports: tcp(5432), severity: "high" },
  { key: "sqlserver", name: "Microsoft SQL Server", ports: [...tcp(1433, 1434), ...udp(1434)], severity: "high" },
  { key: "elasticsearch", name: "Elasticsearch/OpenSearch and Kibana", ports: tcp(9200, 9300, 5601), severity: "high" },
  { key: "kafka", name: "Kafka", ports: tcp(9092), severity: "high" },
  { key: "zookeeper", name: "ZooKeeper", ports: tcp(2181), severity: "high" },
  { key: "rabbitmq", name: "RabbitMQ", ports: tcp(5672, 15672), severity: "high" },
  { key: "couchdb", name: "CouchDB", ports: tcp(5984), severity: "high" },
  { key: "etcd", name: "etcd", ports: tcp(2379, 2380), severity: "critical" },
  { key: "kubernetes", name: "the Kubernetes API server and kubelet", ports: tcp(6443, 10250), severity: "critical" },
  { key: "nfs", name: "NFS", ports: [...tcp(111, 2049), ...udp(111, 2049)], severity: "high" },
  { key: "telnet", name: "Telnet", ports: tcp(23), severity: "high" },
  { key: "ftp", name: "FTP", ports: tcp(20, 21), severity: "high" },
  { key: "smtp", name: "SMTP", ports: tcp(25), severity: "medium" },
  { key: "netbios", name: "NetBIOS", ports: [...udp(137, 138), ...tcp(139)], severity: "high" },
  { key: "rpc", name: "Microsoft RPC", ports: tcp(135), severity: "high" },
  { key: "snmp", name: "SNMP", ports: udp(161), severity: "high" },
  { key: "salt", name: "the SaltStack master", ports: tcp(4505, 4506), severity: "critical" },
  { key: "hadoop", name: "the Hadoop NameNode", ports: tcp(8020, 9870, 50070), severity: "high" },
  { key: "prometheus", name: "Prometheus", ports: tcp(9090), severity: "medium" },
]

/**
 * The list GCP firewall rules and Azure NSGs are checked against: the shared services plus SMB (AWS has its own CIFS
 * check, FSBP-aligned, so SMB is not in the shared list).
 */
export const FIREWALL_SERVICE_PORTS: ReadonlyArray<ServicePorts> = [...SERVICE_PORTS, { key: "cifs", name: "SMB/CIFS file sharing", ports: tcp(139, 445), severity: "high" }]
