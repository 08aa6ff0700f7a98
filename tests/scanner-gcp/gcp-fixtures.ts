/**
 * Two projects in the providers' wire format (shaped like the REST reference examples):
 * - "hardened-proj": every CIS check passes;
 * - "insecure-proj": every CIS check fails, and most checks also have a compliant resource, named "ok-…" (the
 *   non-compliant ones are "bad-…").
 * Ages are relative to NOW, which the scans use as their evaluation clock.
 */
import type { GcpProjectState, Json, Scoped } from "./gcp-world.ts"

export const NOW = new Date("2026-06-01T00:00:00Z")
export const daysAgo = (d: number) => new Date(NOW.getTime() - d * 86_400_000).toISOString()
export const daysAhead = (d: number) => new Date(NOW.getTime() + d * 86_400_000).toISOString()

const COMPUTE = "https://www.googleapis.com/compute/v1"
const CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"

export const metricFilters = {
  ownership:
    '(protoPayload.serviceName="cloudresourcemanager.googleapis.com") AND (ProjectOwnership OR projectOwnerInvitee) OR (protoPayload.serviceData.policyDelta.bindingDeltas.action="REMOVE" AND protoPayload.serviceData.policyDelta.bindingDeltas.role="roles/owner") OR (protoPayload.serviceData.policyDelta.bindingDeltas.action="ADD" AND protoPayload.serviceData.policyDelta.bindingDeltas.role="roles/owner")',
  audit: 'protoPayload.methodName="SetIamPolicy" AND protoPayload.serviceData.policyDelta.auditConfigDeltas:*',
  role: 'resource.type="iam_role" AND (protoPayload.methodName = "google.iam.admin.v1.CreateRole" OR protoPayload.methodName="google.iam.admin.v1.DeleteRole" OR protoPayload.methodName="google.iam.admin.v1.UpdateRole")',
  firewall:
    'resource.type="gce_firewall_rule" AND (protoPayload.methodName:"compute.firewalls.patch" OR protoPayload.methodName:"compute.firewalls.insert" OR protoPayload.methodName:"compute.firewalls.delete")',
  route: 'resource.type="gce_route" AND (protoPayload.methodName:"compute.routes.delete" OR protoPayload.methodName:"compute.routes.insert")',
  network:
    'resource.type="gce_network" AND (protoPayload.methodName:"compute.networks.insert" OR protoPayload.methodName:"compute.networks.patch" OR protoPayload.methodName:"compute.networks.delete" OR protoPayload.methodName:"compute.networks.removePeering" OR protoPayload.methodName:"compute.networks.addPeering")',
  bucketIam: 'resource.type="gcs_bucket" AND protoPayload.methodName="storage.setIamPermissions"',
  sql: 'protoPayload.methodName="cloudsql.instances.update"',
} as const

const alertOn = (project: string, metric: string, enabled = true): Json => ({
  name: `projects/${project}/alertPolicies/${metric}-alert`,
  displayName: `${metric} alert`,
  combiner: "OR",
  enabled,
  conditions: [
    {
      name: `projects/${project}/alertPolicies/${metric}-alert/conditions/1`,
      displayName: `${metric} count`,
      conditionThreshold: { filter: `metric.type="logging.googleapis.com/user/${metric}" AND resource.type="global"`, comparison: "COMPARISON_GT", thresholdValue: 0, duration: "0s" },
    },
  ],
  notificationChannels: [`projects/${project}/notificationChannels/123`],
})

const metric = (name: string, filter: string): Json => ({ name, filter, metricDescriptor: { metricKind: "DELTA", valueType: "INT64" } })

const instance = (project: string, zone: string, name: string, fields: Json): Scoped => ({
  scope: `zones/${zone}`,
  item: {
    kind: "compute#instance",
    id: String(Math.abs(hash(name))),
    name,
    zone: `${COMPUTE}/projects/${project}/zones/${zone}`,
    machineType: `${COMPUTE}/projects/${project}/zones/${zone}/machineTypes/n2d-standard-2`,
    status: "RUNNING",
    networkInterfaces: [{ network: `${COMPUTE}/projects/${project}/global/networks/prod-vpc`, networkIP: "10.0.0.2", name: "nic0" }],
    selfLink: `${COMPUTE}/projects/${project}/zones/${zone}/instances/${name}`,
    ...fields,
  },
})

function hash(s: string): number {
  let h = 0
  for (const c of s) h = (h * 31 + c.charCodeAt(0)) | 0
  return h
}

const sql = (name: string, version: string, settings: Json, extra: Json = {}): Json => ({
  kind: "sql#instance",
  name,
  databaseVersion: version,
  region: "us-central1",
  instanceType: "CLOUD_SQL_INSTANCE",
  state: "RUNNABLE",
  ipAddresses: [{ type: "PRIVATE", ipAddress: "10.10.0.3" }],
  settings: { kind: "sql#settings", tier: "db-custom-2-7680", settingsVersion: "3", ...settings },
  ...extra,
})

/** Settings of a hardened Cloud SQL instance beyond CIS: regional, protected against deletion. */
const resilient = { availabilityType: "REGIONAL", deletionProtectionEnabled: true }
const cmek = (p: string): Json => ({ diskEncryptionConfiguration: { kmsKeyName: `projects/${p}/locations/us-central1/keyRings/sql/cryptoKeys/sql-cmek` } })
/** A hardened bucket beyond CIS: versioned, soft delete on, usage logs written to `logBucket`. */
const keptAndLogged = (logBucket: string): Json => ({ versioning: { enabled: true }, softDeletePolicy: { retentionDurationSeconds: "604800" }, logging: { logBucket, logObjectPrefix: "usage" } })

/** A hardened node pool: auto-upgrade, a dedicated node service account, the GKE metadata server. */
const gkePool = (name: string): Json => ({
  name,
  management: { autoUpgrade: true, autoRepair: true },
  config: { machineType: "e2-standard-4", serviceAccount: "gke-nodes@proj.iam.gserviceaccount.com", workloadMetadataConfig: { mode: "GKE_METADATA" } },
})
/** A hardened GKE cluster (private endpoint and nodes, Workload Identity, shielded nodes, CMEK secrets), with overrides. */
const gkeCluster = (name: string, overrides: Json): Json => ({
  name,
  location: "us-central1",
  privateClusterConfig: { enablePrivateNodes: true, enablePrivateEndpoint: true },
  masterAuthorizedNetworksConfig: { enabled: false },
  networkPolicy: { enabled: true },
  workloadIdentityConfig: { workloadPool: "proj.svc.id.goog" },
  legacyAbac: { enabled: false },
  shieldedNodes: { enabled: true },
  databaseEncryption: { state: "ENCRYPTED", keyName: "projects/proj/locations/us-central1/keyRings/gke/cryptoKeys/secrets" },
  loggingService: "logging.googleapis.com/kubernetes",
  monitoringService: "monitoring.googleapis.com/kubernetes",
  nodePools: [gkePool("default-pool")],
  ...overrides,
})

const flags = (entries: Record<string, string>) => Object.entries(entries).map(([name, value]) => ({ name, value }))

export const emptyProject = (projectId: string, projectNumber: string): GcpProjectState => ({
  projectId,
  projectNumber,
  iamPolicy: { version: 1, etag: "BwX=", bindings: [] },
  contacts: [],
  cloudAssetState: "ENABLED",
  accessApproval: null,
  serviceAccounts: [],
  kmsLocations: ["global", "us-central1", "europe-west1"],
  keyRings: [],
  cryptoKeys: [],
  apiKeys: [],
  sinks: [],
  metrics: [],
  alertPolicies: [],
  buckets: [],
  managedZones: [],
  dnsPolicies: [],
  computeProject: { kind: "compute#project", name: projectId, id: projectNumber, defaultServiceAccount: `${projectNumber}-compute@developer.gserviceaccount.com`, commonInstanceMetadata: { kind: "compute#metadata", fingerprint: "abc=", items: [] } },
  networks: [],
  firewalls: [],
  subnetworks: [],
  instances: [],
  disks: [],
  backendServices: [],
  regions: ["us-central1", "europe-west1"],
  sqlInstances: [],
  datasets: [],
  dataprocClusters: [],
  disabledApis: new Set(),
})

const gkeNode = (project: string, number: string): Scoped =>
  instance(project, "us-central1-b", "gke-prod-default-pool-1a2b3c4d-x1y2", {
    serviceAccounts: [{ email: `${number}-compute@developer.gserviceaccount.com`, scopes: [CLOUD_PLATFORM] }],
    canIpForward: true,
    labels: { "goog-gke-node": "" },
    networkInterfaces: [{ network: `${COMPUTE}/projects/${project}/global/networks/prod-vpc`, accessConfigs: [{ name: "external-nat", type: "ONE_TO_ONE_NAT", natIP: "34.1.2.3" }] }],
  })

export function hardenedProject(): GcpProjectState {
  const p = "hardened-proj"
  const n = "111111111111"
  const app = `app@${p}.iam.gserviceaccount.com`
  const base = emptyProject(p, n)
  const names = ["owner-changes", "audit-config-changes", "custom-role-changes", "firewall-changes", "route-changes", "network-changes", "bucket-iam-changes", "sql-changes"]
  const filters = [metricFilters.ownership, metricFilters.audit, metricFilters.role, metricFilters.firewall, metricFilters.route, metricFilters.network, metricFilters.bucketIam, metricFilters.sql]
  return {
    ...base,
    iamPolicy: {
      version: 3,
      etag: "BwYH1a2b3c4=",
      bindings: [
        { role: "roles/owner", members: ["user:alice@example.com"] },
        { role: "roles/viewer", members: [`serviceAccount:${app}`] },
        { role: "roles/iam.serviceAccountAdmin", members: ["user:alice@example.com"] },
        { role: "roles/cloudkms.admin", members: ["user:bob@example.com"] },
        { role: "roles/cloudkms.cryptoKeyEncrypterDecrypter", members: [`serviceAccount:${app}`] },
      ],
      auditConfigs: [{ service: "allServices", auditLogConfigs: [{ logType: "ADMIN_READ" }, { logType: "DATA_READ" }, { logType: "DATA_WRITE" }] }],
    },
    contacts: [{ name: "organizations/123456789012/contacts/1", email: "security@example.com", notificationCategorySubscriptions: ["ALL"], languageTag: "en-US", validationState: "VALID" }],
    cloudAssetState: "ENABLED",
    accessApproval: { notificationEmails: ["security@example.com"], enrolledServices: [{ cloudProduct: "all", enrollmentLevel: "BLOCK_ALL" }], enrolledAncestor: false },
    serviceAccounts: [{ account: { name: `projects/${p}/serviceAccounts/${app}`, projectId: p, uniqueId: "1001", email: app, displayName: "App" }, keys: [] }],
    keyRings: [`projects/${p}/locations/us-central1/keyRings/app-ring`],
    cryptoKeys: [
      {
        key: { name: `projects/${p}/locations/us-central1/keyRings/app-ring/cryptoKeys/ok-key`, purpose: "ENCRYPT_DECRYPT", createTime: daysAgo(100), rotationPeriod: "7776000s", nextRotationTime: daysAhead(30), primary: { name: "v1", state: "ENABLED" } },
        policy: { version: 1, etag: "BwX=", bindings: [{ role: "roles/cloudkms.cryptoKeyEncrypterDecrypter", members: [`serviceAccount:${app}`] }] },
      },
      {
        key: { name: `projects/${p}/locations/us-central1/keyRings/app-ring/cryptoKeys/ok-signing`, purpose: "ASYMMETRIC_SIGN", createTime: daysAgo(100), primary: { name: "v1", state: "ENABLED" } },
        policy: { version: 1, etag: "BwX=" },
      },
    ],
    sinks: [{ name: "all-logs", destination: "storage.googleapis.com/hardened-logs", filter: "", writerIdentity: "serviceAccount:p111-1@gcp-sa-logging.iam.gserviceaccount.com" }],
    metrics: names.map((m, i) => metric(m, filters[i]!)),
    alertPolicies: names.map((m) => alertOn(p, m)),
    buckets: [
      {
        bucket: {
          kind: "storage#bucket",
          id: "hardened-logs",
          name: "hardened-logs",
          location: "US",
          locationType: "multi-region",
          iamConfiguration: { uniformBucketLevelAccess: { enabled: true, lockedTime: daysAhead(80) }, publicAccessPrevention: "enforced" },
          // A locked retention policy and Object Versioning cannot coexist: the policy is this bucket's protection.
          softDeletePolicy: { retentionDurationSeconds: "604800" },
          logging: { logBucket: "hardened-access-logs", logObjectPrefix: "usage" },
          retentionPolicy: { retentionPeriod: "31536000", effectiveTime: daysAgo(300), isLocked: true },
        },
        policy: { bindings: [{ role: "roles/storage.objectCreator", members: ["serviceAccount:p111-1@gcp-sa-logging.iam.gserviceaccount.com"] }] },
      },
      {
        bucket: { kind: "storage#bucket", id: "ok-bucket", name: "ok-bucket", location: "EUROPE-WEST1", iamConfiguration: { uniformBucketLevelAccess: { enabled: true }, publicAccessPrevention: "inherited" }, ...keptAndLogged("hardened-logs") },
        policy: { bindings: [{ role: "roles/storage.legacyBucketOwner", members: [`projectOwner:${p}`] }] },
      },
    ],
    managedZones: [
      {
        kind: "dns#managedZone",
        name: "ok-zone",
        dnsName: "example.com.",
        visibility: "public",
        dnssecConfig: { kind: "dns#managedZoneDnsSecConfig", state: "on", nonExistence: "nsec3", defaultKeySpecs: [{ keyType: "keySigning", algorithm: "rsasha256", keyLength: 2048 }, { keyType: "zoneSigning", algorithm: "rsasha256", keyLength: 1024 }] },
      },
      { kind: "dns#managedZone", name: "internal-zone", dnsName: "corp.internal.", visibility: "private" },
    ],
    dnsPolicies: [{ kind: "dns#policy", name: "log-all", enableLogging: true, networks: [{ networkUrl: `${COMPUTE}/projects/${p}/global/networks/prod-vpc` }] }],
    computeProject: { ...base.computeProject, commonInstanceMetadata: { kind: "compute#metadata", fingerprint: "abc=", items: [{ key: "enable-oslogin", value: "TRUE" }, { key: "enable-oslogin-2fa", value: "TRUE" }] } },
    networks: [{ kind: "compute#network", name: "prod-vpc", autoCreateSubnetworks: false, selfLink: `${COMPUTE}/projects/${p}/global/networks/prod-vpc`, subnetworks: [`${COMPUTE}/projects/${p}/regions/us-central1/subnetworks/ok-subnet`] }],
    firewalls: [
      { kind: "compute#firewall", name: "ok-allow-iap", network: `${COMPUTE}/projects/${p}/global/networks/prod-vpc`, direction: "INGRESS", priority: 1000, sourceRanges: ["35.235.240.0/20"], allowed: [{ IPProtocol: "tcp", ports: ["22", "3389"] }] },
      { kind: "compute#firewall", name: "ok-allow-https", network: `${COMPUTE}/projects/${p}/global/networks/prod-vpc`, direction: "INGRESS", priority: 1000, sourceRanges: ["0.0.0.0/0"], allowed: [{ IPProtocol: "tcp", ports: ["443"] }] },
    ],
    subnetworks: [
      { scope: "regions/us-central1", item: { kind: "compute#subnetwork", name: "ok-subnet", region: `${COMPUTE}/projects/${p}/regions/us-central1`, network: `${COMPUTE}/projects/${p}/global/networks/prod-vpc`, ipCidrRange: "10.0.0.0/20", purpose: "PRIVATE", fingerprint: "f1=", logConfig: { enable: true, aggregationInterval: "INTERVAL_5_SEC", flowSampling: 1, metadata: "INCLUDE_ALL_METADATA" } } },
      { scope: "regions/us-central1", item: { kind: "compute#subnetwork", name: "proxy-only", region: `${COMPUTE}/projects/${p}/regions/us-central1`, network: `${COMPUTE}/projects/${p}/global/networks/prod-vpc`, ipCidrRange: "10.129.0.0/23", purpose: "REGIONAL_MANAGED_PROXY", fingerprint: "f2=" } },
    ],
    instances: [
      instance(p, "us-central1-a", "ok-vm", {
        serviceAccounts: [{ email: app, scopes: ["https://www.googleapis.com/auth/devstorage.read_only"] }],
        canIpForward: false,
        metadata: { kind: "compute#metadata", fingerprint: "m1=", items: [{ key: "block-project-ssh-keys", value: "TRUE" }, { key: "serial-port-enable", value: "false" }] },
        shieldedInstanceConfig: { enableSecureBoot: true, enableVtpm: true, enableIntegrityMonitoring: true },
        confidentialInstanceConfig: { enableConfidentialCompute: true },
      }),
      gkeNode(p, n),
    ],
    disks: [{ scope: "zones/us-central1-a", item: { kind: "compute#disk", name: "ok-vm", sizeGb: "10", users: [`${COMPUTE}/projects/${p}/zones/us-central1-a/instances/ok-vm`], diskEncryptionKey: { sha256: "xOmFl3zk2gbPa7CvCVZfjs6XiwOGZ8OIsF/Bt+HBVZc=" } } }],
    backendServices: [
      { scope: "global", item: { kind: "compute#backendService", name: "ok-web-backend", protocol: "HTTPS", loadBalancingScheme: "EXTERNAL_MANAGED", fingerprint: "b1=", logConfig: { enable: true, sampleRate: 1 }, selfLink: `${COMPUTE}/projects/${p}/global/backendServices/ok-web-backend` } },
      { scope: "regions/us-central1", item: { kind: "compute#backendService", name: "tcp-backend", region: `${COMPUTE}/projects/${p}/regions/us-central1`, protocol: "TCP", loadBalancingScheme: "INTERNAL", fingerprint: "b2=" } },
    ],
    sqlInstances: [
      sql("ok-mysql", "MYSQL_8_0", { ...resilient, ipConfiguration: { ipv4Enabled: false, sslMode: "ENCRYPTED_ONLY", privateNetwork: `projects/${p}/global/networks/prod-vpc` }, backupConfiguration: { enabled: true, binaryLogEnabled: true }, databaseFlags: flags({ skip_show_database: "on", local_infile: "off" }) }),
      sql("ok-postgres", "POSTGRES_15", {
        ...resilient,
        ipConfiguration: { ipv4Enabled: false, sslMode: "TRUSTED_CLIENT_CERTIFICATE_REQUIRED" },
        backupConfiguration: { enabled: true, pointInTimeRecoveryEnabled: true },
        databaseFlags: flags({ log_connections: "on", log_disconnections: "on", log_statement: "ddl", "cloudsql.enable_pgaudit": "on", log_min_messages: "warning", log_min_error_statement: "error", log_min_duration_statement: "-1" }),
      }),
      sql("ok-sqlserver", "SQLSERVER_2019_STANDARD", {
        ...resilient,
        ipConfiguration: { ipv4Enabled: false, sslMode: "ENCRYPTED_ONLY" },
        backupConfiguration: { enabled: true, pointInTimeRecoveryEnabled: true },
        databaseFlags: flags({ "external scripts enabled": "off", "cross db ownership chaining": "off", "user connections": "0", "remote access": "off", "3625": "on", "contained database authentication": "off" }),
      }),
    ].map((i) => ({ ...i, ...cmek(p) })),
    datasets: [
      {
        dataset: {
          datasetReference: { datasetId: "ok_dataset", projectId: p },
          location: "US",
          access: [
            { role: "WRITER", specialGroup: "projectWriters" },
            { role: "OWNER", specialGroup: "projectOwners" },
            { role: "READER", specialGroup: "projectReaders" },
            { role: "READER", userByEmail: "analyst@example.com" },
          ],
          defaultEncryptionConfiguration: { kmsKeyName: `projects/${p}/locations/us/keyRings/bq/cryptoKeys/bq-key` },
        },
        tables: [{ tableReference: { projectId: p, datasetId: "ok_dataset", tableId: "ok_table" }, type: "TABLE", location: "US", encryptionConfiguration: { kmsKeyName: `projects/${p}/locations/us/keyRings/bq/cryptoKeys/bq-key` } }],
      },
    ],
    secrets: [{ secret: { name: `projects/${n}/secrets/ok-db-password`, createTime: daysAgo(30), replication: { automatic: {} }, rotation: { nextRotationTime: daysAhead(20), rotationPeriod: "2592000s" }, topics: [{ name: `projects/${p}/topics/rotate` }] }, policy: { bindings: [{ role: "roles/secretmanager.secretAccessor", members: [`serviceAccount:${app}`] }] } }],
    functions: [
      {
        fn: { name: `projects/${p}/locations/us-central1/functions/ok-fn`, environment: "GEN_2", state: "ACTIVE", buildConfig: { runtime: "nodejs22", entryPoint: "handler" }, serviceConfig: { service: `projects/${p}/locations/us-central1/services/ok-fn`, serviceAccountEmail: app, ingressSettings: "ALLOW_INTERNAL_ONLY", uri: "https://ok-fn-abc-uc.a.run.app" } },
        policy: { bindings: [{ role: "roles/cloudfunctions.invoker", members: [`serviceAccount:${app}`] }] },
      },
    ],
    repositories: [
      {
        repo: { name: `projects/${p}/locations/us-central1/repositories/ok-images`, format: "DOCKER", mode: "STANDARD_REPOSITORY", kmsKeyName: `projects/${p}/locations/us-central1/keyRings/app-ring/cryptoKeys/ok-key`, createTime: daysAgo(100) },
        policy: { bindings: [{ role: "roles/artifactregistry.reader", members: [`serviceAccount:${app}`] }] },
      },
    ],
    gkeClusters: [gkeCluster("ok-gke", {}), gkeCluster("ok-gke-authorized", { privateClusterConfig: { enablePrivateNodes: true, enablePrivateEndpoint: false }, masterAuthorizedNetworksConfig: { enabled: true, cidrBlocks: [{ displayName: "office", cidrBlock: "203.0.113.0/24" }] }, networkPolicy: undefined, networkConfig: { datapathProvider: "ADVANCED_DATAPATH" } })],
    dataprocClusters: [{ region: "us-central1", cluster: { projectId: p, clusterName: "ok-cluster", clusterUuid: "u1", config: { encryptionConfig: { gcePdKmsKeyName: `projects/${p}/locations/us-central1/keyRings/dp/cryptoKeys/dp-key` } }, status: { state: "RUNNING" } } }],
  }
}

export function insecureProject(): GcpProjectState {
  const p = "insecure-proj"
  const n = "222222222222"
  const defaultSa = `${n}-compute@developer.gserviceaccount.com`
  const badAdmin = `bad-admin@${p}.iam.gserviceaccount.com`
  const reader = `ok-reader@${p}.iam.gserviceaccount.com`
  const keys = `bad-keys@${p}.iam.gserviceaccount.com`
  const base = emptyProject(p, n)
  const net = (name: string) => `${COMPUTE}/projects/${p}/global/networks/${name}`
  return {
    ...base,
    iamPolicy: {
      version: 1,
      etag: "BwX=",
      bindings: [
        // The Google APIs Service Agent holds Editor by design: a Google-managed agent, exempt from every IAM check.
        { role: "roles/editor", members: [`serviceAccount:${defaultSa}`, `serviceAccount:${badAdmin}`, "serviceAccount:222222222222@cloudservices.gserviceaccount.com"] },
        { role: "roles/compute.admin", members: [`serviceAccount:${badAdmin}`] },
        { role: "roles/viewer", members: [`serviceAccount:${reader}`] },
        { role: "roles/iam.serviceAccountUser", members: ["user:dev@example.com"] },
        { role: "roles/viewer", members: ["user:contractor.jane@gmail.com"] },
        { role: "roles/iam.serviceAccountAdmin", members: ["user:dev@example.com"] },
        { role: "roles/cloudkms.admin", members: ["user:ops@example.com"] },
        { role: "roles/cloudkms.cryptoKeyDecrypter", members: ["user:ops@example.com"] },
      ],
      auditConfigs: [
        { service: "allServices", auditLogConfigs: [{ logType: "ADMIN_READ" }, { logType: "DATA_WRITE", exemptedMembers: ["user:dev@example.com"] }] },
        { service: "storage.googleapis.com", auditLogConfigs: [{ logType: "DATA_READ" }] },
      ],
    },
    contacts: [{ name: `projects/${p}/contacts/7`, email: "it@example.com", notificationCategorySubscriptions: ["TECHNICAL", "BILLING"], validationState: "VALID" }],
    cloudAssetState: "DISABLED",
    accessApproval: null,
    serviceAccounts: [
      { account: { name: `projects/${p}/serviceAccounts/${reader}`, projectId: p, email: reader, uniqueId: "2001" }, keys: [] },
      {
        account: { name: `projects/${p}/serviceAccounts/${keys}`, projectId: p, email: keys, uniqueId: "2002" },
        keys: [
          { name: `projects/${p}/serviceAccounts/${keys}/keys/okfreshkey0001`, validAfterTime: daysAgo(10), validBeforeTime: "9999-12-31T23:59:59Z", keyAlgorithm: "KEY_ALG_RSA_2048", keyOrigin: "GOOGLE_PROVIDED", keyType: "USER_MANAGED" },
          { name: `projects/${p}/serviceAccounts/${keys}/keys/badoldkey0002`, validAfterTime: daysAgo(400), validBeforeTime: "9999-12-31T23:59:59Z", keyAlgorithm: "KEY_ALG_RSA_2048", keyOrigin: "GOOGLE_PROVIDED", keyType: "USER_MANAGED" },
        ],
      },
    ],
    kmsLocations: ["global", "us-central1"],
    keyRings: [`projects/${p}/locations/global/keyRings/main`],
    cryptoKeys: [
      {
        key: { name: `projects/${p}/locations/global/keyRings/main/cryptoKeys/bad-public-key`, purpose: "ENCRYPT_DECRYPT", createTime: daysAgo(500), rotationPeriod: "31536000s", nextRotationTime: daysAhead(200), primary: { name: "v1", state: "ENABLED" } },
        policy: { version: 1, etag: "BwX=", bindings: [{ role: "roles/cloudkms.cryptoKeyEncrypter", members: ["allUsers"] }] },
      },
      {
        key: { name: `projects/${p}/locations/global/keyRings/main/cryptoKeys/bad-no-rotation`, purpose: "ENCRYPT_DECRYPT", createTime: daysAgo(500), primary: { name: "v1", state: "ENABLED" } },
        policy: { version: 1, etag: "BwX=", bindings: [{ role: "roles/cloudkms.viewer", members: ["allAuthenticatedUsers"] }] },
      },
      {
        key: { name: `projects/${p}/locations/global/keyRings/main/cryptoKeys/ok-rotated`, purpose: "ENCRYPT_DECRYPT", createTime: daysAgo(50), rotationPeriod: "2592000s", nextRotationTime: daysAhead(10), primary: { name: "v1", state: "ENABLED" } },
        policy: { version: 1, etag: "BwX=" },
      },
    ],
    apiKeys: [
      { name: `projects/${n}/locations/global/keys/bad-unrestricted`, uid: "k1", displayName: "legacy key", createTime: daysAgo(200), updateTime: daysAgo(200), etag: "W/\"1\"" },
      { name: `projects/${n}/locations/global/keys/ok-restricted`, uid: "k2", displayName: "translate", createTime: daysAgo(10), restrictions: { apiTargets: [{ service: "translate.googleapis.com" }], serverKeyRestrictions: { allowedIps: ["203.0.113.7"] } } },
      { name: `projects/${n}/locations/global/keys/bad-all-apis`, uid: "k3", displayName: "everything", createTime: daysAgo(5), restrictions: { apiTargets: [{ service: "cloudapis.googleapis.com" }] } },
    ],
    sinks: [
      { name: "errors-only", destination: "storage.googleapis.com/insecure-logs", filter: "severity>=ERROR" },
      { name: "disabled-all", destination: `bigquery.googleapis.com/projects/${p}/datasets/logs`, filter: "", disabled: true },
      { name: "to-missing-bucket", destination: "storage.googleapis.com/gone-bucket", filter: "severity>=WARNING" },
    ],
    metrics: [
      metric("fw-changes", metricFilters.firewall),
      metric("route-changes", metricFilters.route),
      metric("role-changes-partial", 'resource.type="iam_role" AND protoPayload.methodName="google.iam.admin.v1.CreateRole"'),
    ],
    alertPolicies: [alertOn(p, "route-changes", false)],
    buckets: [
      {
        bucket: { kind: "storage#bucket", id: "insecure-logs", name: "insecure-logs", location: "US-CENTRAL1", iamConfiguration: { uniformBucketLevelAccess: { enabled: false }, publicAccessPrevention: "inherited" }, retentionPolicy: { retentionPeriod: "86400", effectiveTime: daysAgo(30) } },
        policy: { bindings: [{ role: "roles/storage.objectViewer", members: ["allUsers"] }, { role: "roles/storage.legacyBucketOwner", members: [`projectOwner:${p}`] }] },
      },
      {
        bucket: { kind: "storage#bucket", id: "ok-pap-bucket", name: "ok-pap-bucket", location: "US", iamConfiguration: { uniformBucketLevelAccess: { enabled: true }, publicAccessPrevention: "enforced" } },
        policy: { bindings: [{ role: "roles/storage.objectViewer", members: ["allAuthenticatedUsers"] }] },
      },
      // No versioning and no retention policy (insecure-logs has a retention policy, so versioning is not judged there).
      { bucket: { kind: "storage#bucket", id: "bad-unversioned", name: "bad-unversioned", location: "US", iamConfiguration: { uniformBucketLevelAccess: { enabled: true }, publicAccessPrevention: "enforced" } }, policy: {} },
    ],
    managedZones: [
      { kind: "dns#managedZone", name: "bad-zone", dnsName: "insecure.example.", visibility: "public", dnssecConfig: { state: "off" } },
      { kind: "dns#managedZone", name: "bad-sha1-zone", dnsName: "legacy.example.", visibility: "public", dnssecConfig: { state: "on", defaultKeySpecs: [{ keyType: "keySigning", algorithm: "rsasha1", keyLength: 2048 }, { keyType: "zoneSigning", algorithm: "rsasha1", keyLength: 1024 }] } },
      { kind: "dns#managedZone", name: "ok-zone2", dnsName: "modern.example.", visibility: "public", dnssecConfig: { state: "on", defaultKeySpecs: [{ keyType: "keySigning", algorithm: "ecdsap256sha256", keyLength: 256 }, { keyType: "zoneSigning", algorithm: "ecdsap256sha256", keyLength: 256 }] } },
    ],
    dnsPolicies: [
      { kind: "dns#policy", name: "no-log", enableLogging: false, networks: [{ networkUrl: net("default") }] },
      { kind: "dns#policy", name: "logs", enableLogging: true, networks: [{ networkUrl: net("ok-logged-vpc") }] },
    ],
    computeProject: { ...base.computeProject, commonInstanceMetadata: { kind: "compute#metadata", fingerprint: "abc=", items: [{ key: "enable-oslogin", value: "FALSE" }, { key: "serial-port-enable", value: "true" }] } },
    networks: [
      { kind: "compute#network", name: "default", autoCreateSubnetworks: true, selfLink: net("default"), subnetworks: [] },
      { kind: "compute#network", name: "bad-legacy-net", IPv4Range: "10.240.0.0/16", gatewayIPv4: "10.240.0.1", selfLink: net("bad-legacy-net") },
      { kind: "compute#network", name: "ok-logged-vpc", autoCreateSubnetworks: false, selfLink: net("ok-logged-vpc"), subnetworks: [] },
    ],
    firewalls: [
      { kind: "compute#firewall", name: "bad-default-allow-ssh", network: net("default"), direction: "INGRESS", priority: 65534, sourceRanges: ["0.0.0.0/0"], allowed: [{ IPProtocol: "tcp", ports: ["22"] }] },
      { kind: "compute#firewall", name: "bad-default-allow-rdp", network: net("default"), direction: "INGRESS", priority: 65534, sourceRanges: ["0.0.0.0/0"], allowed: [{ IPProtocol: "tcp", ports: ["3389"] }] },
      { kind: "compute#firewall", name: "bad-all-tcp", network: net("default"), direction: "INGRESS", sourceRanges: ["0.0.0.0/0"], allowed: [{ IPProtocol: "tcp" }] },
      { kind: "compute#firewall", name: "bad-range-v6", network: net("default"), direction: "INGRESS", sourceRanges: ["::/0"], allowed: [{ IPProtocol: "tcp", ports: ["20-30", "3000-4000"] }] },
      { kind: "compute#firewall", name: "bad-all-protocols", network: net("default"), direction: "INGRESS", sourceRanges: ["10.0.0.0/8", "0.0.0.0/0"], allowed: [{ IPProtocol: "all" }] },
      // Two halves of the IPv4 space admit the internet as surely as 0.0.0.0/0.
      { kind: "compute#firewall", name: "bad-ssh-halves", network: net("default"), direction: "INGRESS", sourceRanges: ["0.0.0.0/1", "128.0.0.0/1"], allowed: [{ IPProtocol: "tcp", ports: ["22"] }] },
      { kind: "compute#firewall", name: "ok-internal-ssh", network: net("default"), direction: "INGRESS", sourceRanges: ["10.0.0.0/8"], allowed: [{ IPProtocol: "tcp", ports: ["22", "3389"] }] },
      { kind: "compute#firewall", name: "ok-udp-only", network: net("default"), direction: "INGRESS", sourceRanges: ["0.0.0.0/0"], allowed: [{ IPProtocol: "udp", ports: ["22", "3389"] }] },
      { kind: "compute#firewall", name: "bad-redis-mongo", network: net("default"), direction: "INGRESS", sourceRanges: ["0.0.0.0/0"], allowed: [{ IPProtocol: "tcp", ports: ["6379", "27000-27100"] }] },
      { kind: "compute#firewall", name: "bad-dns-udp", network: net("default"), direction: "INGRESS", sourceRanges: ["::/0"], allowed: [{ IPProtocol: "17", ports: ["53"] }] },
      { kind: "compute#firewall", name: "ok-redis-internal", network: net("default"), direction: "INGRESS", sourceRanges: ["10.0.0.0/8"], allowed: [{ IPProtocol: "tcp", ports: ["6379"] }] },
      { kind: "compute#firewall", name: "disabled-open", network: net("default"), direction: "INGRESS", disabled: true, sourceRanges: ["0.0.0.0/0"], allowed: [{ IPProtocol: "tcp", ports: ["22"] }] },
      { kind: "compute#firewall", name: "egress-all", network: net("default"), direction: "EGRESS", destinationRanges: ["0.0.0.0/0"], allowed: [{ IPProtocol: "all" }] },
    ],
    subnetworks: [
      // Flow logs on at the API defaults (sampling 0.5, no metadata): not what CIS 3.8 asks.
      { scope: "regions/europe-west1", item: { kind: "compute#subnetwork", name: "bad-sampled-subnet", region: `${COMPUTE}/projects/${p}/regions/europe-west1`, network: net("default"), ipCidrRange: "10.132.0.0/20", fingerprint: "s9=", logConfig: { enable: true } } },
      { scope: "regions/us-central1", item: { kind: "compute#subnetwork", name: "bad-subnet", region: `${COMPUTE}/projects/${p}/regions/us-central1`, network: net("default"), ipCidrRange: "10.128.0.0/20", purpose: "PRIVATE", fingerprint: "s1=", selfLink: `${COMPUTE}/projects/${p}/regions/us-central1/subnetworks/bad-subnet` } },
      { scope: "regions/europe-west1", item: { kind: "compute#subnetwork", name: "ok-legacy-flow", region: `${COMPUTE}/projects/${p}/regions/europe-west1`, network: net("default"), ipCidrRange: "10.132.0.0/20", fingerprint: "s2=", enableFlowLogs: true, logConfig: { flowSampling: 1, metadata: "INCLUDE_ALL_METADATA" } } },
    ],
    instances: [
      instance(p, "us-central1-a", "bad-vm", {
        serviceAccounts: [{ email: defaultSa, scopes: [CLOUD_PLATFORM] }],
        canIpForward: true,
        metadata: { kind: "compute#metadata", fingerprint: "m2=", items: [{ key: "startup-script", value: "#!/bin/sh" }] },
        shieldedInstanceConfig: { enableSecureBoot: false, enableVtpm: false, enableIntegrityMonitoring: false },
        networkInterfaces: [{ network: net("default"), networkIP: "10.128.0.5", accessConfigs: [{ kind: "compute#accessConfig", name: "External NAT", type: "ONE_TO_ONE_NAT", natIP: "34.72.1.2" }] }],
      }),
      instance(p, "europe-west1-b", "ok-custom-sa-vm", {
        serviceAccounts: [{ email: reader, scopes: [CLOUD_PLATFORM] }],
        canIpForward: false,
        metadata: { kind: "compute#metadata", fingerprint: "m3=", items: [{ key: "block-project-ssh-keys", value: "true" }, { key: "serial-port-enable", value: "FALSE" }, { key: "enable-oslogin", value: "false" }] },
        shieldedInstanceConfig: { enableSecureBoot: true, enableVtpm: true, enableIntegrityMonitoring: true },
        confidentialInstanceConfig: { enableConfidentialCompute: true },
      }),
      gkeNode(p, n),
    ],
    disks: [
      { scope: "zones/us-central1-a", item: { kind: "compute#disk", name: "bad-vm", sizeGb: "10", users: [`${COMPUTE}/projects/${p}/zones/us-central1-a/instances/bad-vm`] } },
      { scope: "zones/europe-west1-b", item: { kind: "compute#disk", name: "ok-csek-disk", sizeGb: "10", diskEncryptionKey: { sha256: "n8Ixjh5x7ZVh7c3SjaSA6Tt6x3O9kHzN2bGrXk1bAe0=" } } },
    ],
    backendServices: [
      { scope: "regions/us-central1", item: { kind: "compute#backendService", name: "bad-backend", region: `${COMPUTE}/projects/${p}/regions/us-central1`, protocol: "HTTP", loadBalancingScheme: "EXTERNAL_MANAGED", fingerprint: "bs1=", logConfig: { enable: false } } },
      { scope: "global", item: { kind: "compute#backendService", name: "ok-backend", protocol: "HTTP2", loadBalancingScheme: "EXTERNAL", fingerprint: "bs2=", logConfig: { enable: true, sampleRate: 0.5 } } },
    ],
    sqlInstances: [
      sql("bad-mysql", "MYSQL_8_0", {
        ipConfiguration: { ipv4Enabled: true, sslMode: "ALLOW_UNENCRYPTED_AND_ENCRYPTED", authorizedNetworks: [{ kind: "sql#aclEntry", value: "0.0.0.0/0", name: "anywhere" }] },
        backupConfiguration: { enabled: false },
        databaseFlags: flags({ local_infile: "on" }),
      }, { ipAddresses: [{ type: "PRIMARY", ipAddress: "35.1.2.3" }] }),
      sql("ok-mysql2", "MYSQL_5_7", { ipConfiguration: { ipv4Enabled: false, requireSsl: true }, backupConfiguration: { enabled: true }, databaseFlags: flags({ skip_show_database: "ON", local_infile: "OFF" }) }),
      sql("bad-postgres", "POSTGRES_14", {
        ipConfiguration: { ipv4Enabled: false, requireSsl: true },
        backupConfiguration: { enabled: true },
        databaseFlags: flags({ log_error_verbosity: "verbose", log_connections: "off", log_statement: "all", log_min_messages: "info", log_min_error_statement: "notice", log_min_duration_statement: "100" }),
      }),
      sql("ok-postgres2", "POSTGRES_16", {
        ipConfiguration: { ipv4Enabled: false, sslMode: "ENCRYPTED_ONLY" },
        backupConfiguration: { enabled: true },
        databaseFlags: flags({ log_error_verbosity: "terse", log_connections: "on", log_disconnections: "on", log_statement: "ddl", log_min_messages: "error", log_min_error_statement: "fatal", "cloudsql.enable_pgaudit": "on" }),
      }),
      sql("bad-sqlserver", "SQLSERVER_2019_STANDARD", {
        ipConfiguration: { ipv4Enabled: false, sslMode: "ENCRYPTED_ONLY" },
        backupConfiguration: { enabled: true },
        databaseFlags: flags({ "external scripts enabled": "on", "cross db ownership chaining": "on", "user connections": "100", "user options": "32", "contained database authentication": "on" }),
      }),
      sql("ok-sqlserver2", "SQLSERVER_2022_ENTERPRISE", {
        ipConfiguration: { ipv4Enabled: false, sslMode: "ENCRYPTED_ONLY" },
        backupConfiguration: { enabled: true },
        databaseFlags: flags({ "remote access": "off", "3625": "on" }),
      }),
      // Read pools and on-premises source entries are not judged by the backup, HA and recovery checks.
      sql("bad-read-pool", "POSTGRES_16", { ipConfiguration: { ipv4Enabled: false, sslMode: "ENCRYPTED_ONLY" } }, { instanceType: "READ_POOL_INSTANCE", masterInstanceName: `${p}:ok-postgres` }),
      { kind: "sql#instance", name: "onprem-source", databaseVersion: "MYSQL_8_0", region: "us-central1", instanceType: "ON_PREMISES_INSTANCE", onPremisesConfiguration: { hostPort: "198.51.100.7:3306", kind: "sql#onPremisesConfiguration" } },
      sql("bad-replica", "MYSQL_8_0", { ipConfiguration: { ipv4Enabled: false, sslMode: "ENCRYPTED_ONLY" }, backupConfiguration: { enabled: false }, databaseFlags: flags({ skip_show_database: "on", local_infile: "off" }) }, { instanceType: "READ_REPLICA_INSTANCE", masterInstanceName: `${p}:ok-mysql2` }),
    ],
    datasets: [
      {
        dataset: { datasetReference: { datasetId: "bad_public", projectId: p }, location: "EU", access: [{ role: "READER", specialGroup: "allAuthenticatedUsers" }, { role: "READER", iamMember: "allUsers" }, { role: "OWNER", specialGroup: "projectOwners" }] },
        tables: [
          { tableReference: { projectId: p, datasetId: "bad_public", tableId: "bad_table" }, type: "TABLE", location: "EU" },
          { tableReference: { projectId: p, datasetId: "bad_public", tableId: "sales_view" }, type: "VIEW", location: "EU", view: { query: "SELECT * FROM bad_public.bad_table" } },
          { tableReference: { projectId: p, datasetId: "bad_public", tableId: "ok_cmek_table" }, type: "TABLE", location: "EU", encryptionConfiguration: { kmsKeyName: `projects/${p}/locations/eu/keyRings/bq/cryptoKeys/k` } },
        ],
      },
    ],
    // Optional fields left out as often as set: no rotation, no service account (the default one), no key.
    secrets: [
      { secret: { name: `projects/${n}/secrets/bad-api-token`, createTime: daysAgo(400), replication: { automatic: {} } }, policy: { bindings: [{ role: "roles/secretmanager.secretAccessor", members: ["allAuthenticatedUsers", `serviceAccount:reader@${p}.iam.gserviceaccount.com`] }] } },
      { secret: { name: `projects/${n}/secrets/ok-rotated`, replication: { automatic: {} }, rotation: { nextRotationTime: daysAhead(10) } }, policy: {} },
    ],
    functions: [
      { fn: { name: `projects/${p}/locations/europe-west1/functions/bad-public-fn`, environment: "GEN_2", serviceConfig: { ingressSettings: "ALLOW_ALL" } }, policy: { bindings: [{ role: "roles/cloudfunctions.invoker", members: ["allUsers"] }] } },
      { fn: { name: `projects/${p}/locations/europe-west1/functions/ok-private-fn`, serviceConfig: { serviceAccountEmail: `fn@${p}.iam.gserviceaccount.com` } }, policy: {} },
      // 2nd gen: made public on the Cloud Run service behind it (gcloud functions add-invoker-policy-binding), not on the function.
      {
        fn: { name: `projects/${p}/locations/europe-west1/functions/bad-run-public-fn`, environment: "GEN_2", serviceConfig: { service: `projects/${p}/locations/europe-west1/services/bad-run-public-fn`, serviceAccountEmail: `fn@${p}.iam.gserviceaccount.com` } },
        policy: {},
        runPolicy: { bindings: [{ role: "roles/run.invoker", members: ["allUsers"] }] },
      },
    ],
    repositories: [
      { repo: { name: `projects/${p}/locations/europe-west1/repositories/bad-public-repo`, format: "DOCKER" }, policy: { bindings: [{ role: "roles/artifactregistry.reader", members: ["allUsers"] }] } },
      { repo: { name: `projects/${p}/locations/europe-west1/repositories/ok-cmek-repo`, format: "NPM", kmsKeyName: `projects/${p}/locations/europe-west1/keyRings/ar/cryptoKeys/k` }, policy: {} },
    ],
    gkeClusters: [
      {
        name: "bad-gke",
        location: "europe-west1-b",
        legacyAbac: { enabled: true },
        loggingService: "none",
        monitoringService: "monitoring.googleapis.com/kubernetes",
        databaseEncryption: { state: "DECRYPTED" },
        nodePools: [{ name: "default-pool", management: { autoUpgrade: false, autoRepair: true } }, gkePool("auto-pool")],
      },
      gkeCluster("ok-gke2", {}),
      gkeCluster("bad-gke-wide", { privateClusterConfig: { enablePrivateNodes: true }, masterAuthorizedNetworksConfig: { enabled: true, cidrBlocks: [{ displayName: "low", cidrBlock: "0.0.0.0/1" }, { displayName: "high", cidrBlock: "128.0.0.0/1" }] } }),
    ],
    dataprocClusters: [{ region: "europe-west1", cluster: { projectId: p, clusterName: "bad-cluster", clusterUuid: "u2", config: { gceClusterConfig: { zoneUri: "europe-west1-b" } }, status: { state: "RUNNING" } } }],
  }
}
