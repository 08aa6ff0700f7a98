/**
 * Documented defaults, in one table (issue 29): what an absent field means, for every optional field a GCP check
 * reads, next to the decoders (./collectors) and with the reference it comes from. Google APIs leave a field out of
 * an answer when it holds its default (proto3 JSON omits false, 0, "" and the first enum value), so a check must read
 * absence as the documented value, never as "insecure" or "secure" by guess.
 *
 * Entries with a `value` can be filled in: tests/scanner-gcp/defaults.property.test.ts generates answers from the
 * decoders (themselves checked against the official models) with each optional field present or absent, and checks
 * that every check decides the same when these values are filled in. Entries without a `value` document an absence
 * that means "not configured" (no key, no list entry), which has no value to fill in.
 */

/** Where a field sits: the decoder (see DECODERS) and a dotted path, `[]` for "every element of the list". */
export interface FieldDefault {
  readonly decoder: GcpDecoderName
  readonly path: string
  /** The value the API means when the field is absent; undefined when absence means "not configured". */
  readonly value?: string | number | boolean
  /** What absence means, in words (shown in docs and reviews). */
  readonly meaning: string
  /** The official reference the meaning comes from. */
  readonly ref: string
}

export type GcpDecoderName =
  | "compute.Instance"
  | "compute.Disk"
  | "compute.Firewall"
  | "compute.Subnetwork"
  | "compute.Network"
  | "compute.BackendService"
  | "compute.Project"
  | "sql.DatabaseInstance"
  | "storage.Bucket"
  | "bigquery.Dataset"
  | "bigquery.Table"
  | "kms.CryptoKey"
  | "dns.ManagedZone"
  | "dns.Policy"
  | "gke.Cluster"
  | "logging.LogSink"
  | "logging.LogMetric"
  | "monitoring.AlertPolicy"
  | "logging.SinkBucket"
  | "iam.ServiceAccountKey"
  | "apikeys.Key"
  | "project.Contact"
  | "project.AccessApprovalSettings"
  | "dataproc.Cluster"
  | "secretmanager.Secret"
  | "cloudfunctions.Function"
  | "artifactregistry.Repository"

const REF = {
  instance: "https://cloud.google.com/compute/docs/reference/rest/v1/instances",
  shielded: "https://cloud.google.com/compute/docs/reference/rest/v1/instances#ShieldedInstanceConfig",
  disk: "https://cloud.google.com/compute/docs/reference/rest/v1/disks",
  firewall: "https://cloud.google.com/compute/docs/reference/rest/v1/firewalls",
  subnetwork: "https://cloud.google.com/compute/docs/reference/rest/v1/subnetworks",
  network: "https://cloud.google.com/compute/docs/reference/rest/v1/networks",
  backend: "https://cloud.google.com/compute/docs/reference/rest/v1/backendServices",
  metadata: "https://cloud.google.com/compute/docs/metadata/predefined-metadata-keys",
  sql: "https://cloud.google.com/sql/docs/mysql/admin-api/rest/v1/instances",
  sqlFlags: "https://cloud.google.com/sql/docs/postgres/flags",
  bucket: "https://cloud.google.com/storage/docs/json_api/v1/buckets",
  dataset: "https://cloud.google.com/bigquery/docs/reference/rest/v2/datasets",
  table: "https://cloud.google.com/bigquery/docs/reference/rest/v2/tables",
  kms: "https://cloud.google.com/kms/docs/reference/rest/v1/projects.locations.keyRings.cryptoKeys",
  zone: "https://cloud.google.com/dns/docs/reference/rest/v1/managedZones",
  dnsPolicy: "https://cloud.google.com/dns/docs/reference/rest/v1/policies",
  gke: "https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters",
  nodePool: "https://cloud.google.com/kubernetes-engine/docs/reference/rest/v1/projects.locations.clusters.nodePools",
  proto3: "https://protobuf.dev/programming-guides/json/ (proto3 JSON omits fields holding their default: false, 0, \"\", the first enum value)",
  sink: "https://cloud.google.com/logging/docs/reference/v2/rest/v2/projects.sinks",
  metric: "https://cloud.google.com/logging/docs/reference/v2/rest/v2/projects.metrics",
  alert: "https://cloud.google.com/monitoring/api/ref_v3/rest/v3/projects.alertPolicies",
  saKey: "https://cloud.google.com/iam/docs/reference/rest/v1/projects.serviceAccounts.keys",
  apiKey: "https://cloud.google.com/api-keys/docs/reference/rest/v2/projects.locations.keys",
  contacts: "https://cloud.google.com/resource-manager/docs/reference/essentialcontacts/rest/v1/folders.contacts",
  accessApproval: "https://cloud.google.com/assured-workloads/access-approval/docs/reference/rest/v1/AccessApprovalSettings",
  dataproc: "https://cloud.google.com/dataproc/docs/reference/rest/v1/ClusterConfig#EncryptionConfig",
  secret: "https://cloud.google.com/secret-manager/docs/reference/rest/v1/projects.secrets",
  function: "https://cloud.google.com/functions/docs/reference/rest/v2/projects.locations.functions#ServiceConfig",
  repository: "https://cloud.google.com/artifact-registry/docs/reference/rest/v1/projects.locations.repositories",
} as const

export const gcpFieldDefaults: ReadonlyArray<FieldDefault> = [
  // Compute Engine instances
  { decoder: "compute.Instance", path: "canIpForward", value: false, meaning: "IP forwarding is off unless set at creation.", ref: REF.instance },
  { decoder: "compute.Instance", path: "shieldedInstanceConfig.enableSecureBoot", value: false, meaning: "Secure Boot is disabled by default.", ref: REF.shielded },
  { decoder: "compute.Instance", path: "shieldedInstanceConfig.enableVtpm", value: true, meaning: "The vTPM is enabled by default.", ref: REF.shielded },
  { decoder: "compute.Instance", path: "shieldedInstanceConfig.enableIntegrityMonitoring", value: true, meaning: "Integrity monitoring is enabled by default.", ref: REF.shielded },
  { decoder: "compute.Instance", path: "confidentialInstanceConfig.enableConfidentialCompute", value: false, meaning: "Confidential Computing is off unless requested at creation.", ref: REF.instance },
  { decoder: "compute.Instance", path: "confidentialInstanceConfig.confidentialInstanceType", value: "CONFIDENTIAL_INSTANCE_TYPE_UNSPECIFIED", meaning: "No confidential technology (SEV, SEV_SNP, TDX) unless chosen at creation.", ref: REF.instance },
  { decoder: "compute.Instance", path: "serviceAccounts", meaning: "The VM runs without a service account (no default account, no scopes).", ref: REF.instance },
  { decoder: "compute.Instance", path: "serviceAccounts[].scopes", meaning: "The service account has no access scopes.", ref: REF.instance },
  { decoder: "compute.Instance", path: "metadata.items", meaning: "No instance metadata: block-project-ssh-keys, enable-oslogin and serial-port-enable take the project's value, else their defaults (false).", ref: REF.metadata },
  { decoder: "compute.Instance", path: "networkInterfaces[].accessConfigs", meaning: "No external IPv4 address on the interface.", ref: REF.instance },
  { decoder: "compute.Instance", path: "networkInterfaces[].ipv6AccessConfigs", meaning: "No external IPv6 address on the interface.", ref: REF.instance },
  { decoder: "compute.Instance", path: "labels", meaning: "No labels (in particular not goog-gke-node).", ref: REF.instance },
  { decoder: "compute.Project", path: "commonInstanceMetadata.items", meaning: "No project metadata: enable-oslogin, enable-oslogin-2fa and serial-port-enable are off.", ref: REF.metadata },
  { decoder: "compute.Disk", path: "diskEncryptionKey", meaning: "The disk is encrypted with a Google-managed key (neither CSEK nor CMEK).", ref: REF.disk },
  { decoder: "compute.Firewall", path: "direction", value: "INGRESS", meaning: "If unspecified, defaults to INGRESS.", ref: REF.firewall },
  { decoder: "compute.Firewall", path: "disabled", value: false, meaning: "The rule is enforced unless disabled is true (default false).", ref: REF.firewall },
  { decoder: "compute.Firewall", path: "allowed[].ports", meaning: "No port list: the rule applies to connections through any port of the protocol.", ref: REF.firewall },
  { decoder: "compute.Firewall", path: "sourceRanges", meaning: "No source range: the rule admits only the sources named by sourceTags or sourceServiceAccounts; with neither, the API sets 0.0.0.0/0 (read as such).", ref: REF.firewall },
  { decoder: "compute.Subnetwork", path: "purpose", value: "PRIVATE", meaning: "If unspecified, the subnet purpose defaults to PRIVATE.", ref: REF.subnetwork },
  { decoder: "compute.Subnetwork", path: "enableFlowLogs", value: false, meaning: "Flow logs are off unless enabled (default disabled).", ref: REF.subnetwork },
  { decoder: "compute.Subnetwork", path: "logConfig.enable", meaning: "Not set: the legacy enableFlowLogs decides, else flow logs default to disabled.", ref: REF.subnetwork },
  { decoder: "compute.Subnetwork", path: "logConfig.aggregationInterval", value: "INTERVAL_5_SEC", meaning: "Default is an interval of 5 seconds per connection.", ref: REF.subnetwork },
  { decoder: "compute.Subnetwork", path: "logConfig.flowSampling", value: 0.5, meaning: "Default is 0.5 unless an org policy says otherwise (half of the flows are reported).", ref: REF.subnetwork },
  { decoder: "compute.Subnetwork", path: "logConfig.metadata", value: "EXCLUDE_ALL_METADATA", meaning: "Default is EXCLUDE_ALL_METADATA.", ref: REF.subnetwork },
  { decoder: "compute.Subnetwork", path: "logConfig.filterExpr", value: "", meaning: "No filter: every sampled flow is exported.", ref: REF.subnetwork },
  { decoder: "compute.Network", path: "IPv4Range", meaning: "Only legacy networks have a network-wide IPv4 range: absent means a VPC network.", ref: REF.network },
  { decoder: "compute.BackendService", path: "protocol", value: "HTTP", meaning: "The protocol defaults to HTTP.", ref: REF.backend },
  { decoder: "compute.BackendService", path: "logConfig.enable", value: false, meaning: "Request logging is off unless enabled.", ref: REF.backend },
  { decoder: "compute.BackendService", path: "logConfig.sampleRate", value: 1, meaning: "The default sample rate is 1.0 (every request).", ref: REF.backend },
  // Cloud SQL
  { decoder: "sql.DatabaseInstance", path: "instanceType", value: "CLOUD_SQL_INSTANCE", meaning: "instances.list sets the type on every instance; an answer without it is read as a Cloud SQL primary.", ref: REF.sql },
  { decoder: "sql.DatabaseInstance", path: "settings.availabilityType", value: "ZONAL", meaning: "An instance is zonal unless created or patched as REGIONAL.", ref: REF.sql },
  { decoder: "sql.DatabaseInstance", path: "settings.deletionProtectionEnabled", value: false, meaning: "Deletion protection is off unless enabled.", ref: REF.sql },
  { decoder: "sql.DatabaseInstance", path: "settings.backupConfiguration.enabled", value: false, meaning: "Automated backups are off unless enabled.", ref: REF.sql },
  { decoder: "sql.DatabaseInstance", path: "settings.backupConfiguration.binaryLogEnabled", value: false, meaning: "MySQL binary logging (point-in-time recovery) is off unless enabled.", ref: REF.sql },
  { decoder: "sql.DatabaseInstance", path: "settings.backupConfiguration.pointInTimeRecoveryEnabled", value: false, meaning: "Point-in-time recovery is off unless enabled.", ref: REF.sql },
  { decoder: "sql.DatabaseInstance", path: "settings.ipConfiguration.requireSsl", value: false, meaning: "Legacy requireSsl defaults to false (unencrypted connections allowed).", ref: REF.sql },
  { decoder: "sql.DatabaseInstance", path: "settings.ipConfiguration.sslMode", meaning: "Not set: the legacy requireSsl decides (sslMode is ALLOW_UNENCRYPTED_AND_ENCRYPTED when requireSsl is false).", ref: REF.sql },
  { decoder: "sql.DatabaseInstance", path: "settings.ipConfiguration.ipv4Enabled", meaning: "Not set: judged from ipAddresses (a PRIMARY address is a public IP).", ref: REF.sql },
  { decoder: "sql.DatabaseInstance", path: "settings.ipConfiguration.authorizedNetworks", meaning: "No authorised network: no address may connect to the public IP without the Auth Proxy.", ref: REF.sql },
  { decoder: "sql.DatabaseInstance", path: "settings.databaseFlags", meaning: "A flag that is not set takes the engine's Cloud SQL default, which each flag rule states (sql.ts).", ref: REF.sqlFlags },
  { decoder: "sql.DatabaseInstance", path: "diskEncryptionConfiguration", meaning: "Data is encrypted with a Google-managed key.", ref: REF.sql },
  // Cloud Storage
  { decoder: "storage.Bucket", path: "iamConfiguration.bucketPolicyOnly.enabled", value: false, meaning: "Legacy name of uniform bucket-level access; off unless enabled.", ref: REF.bucket },
  { decoder: "storage.Bucket", path: "iamConfiguration.uniformBucketLevelAccess.enabled", meaning: "Not set: the legacy bucketPolicyOnly.enabled decides, else off.", ref: REF.bucket },
  { decoder: "storage.Bucket", path: "iamConfiguration.publicAccessPrevention", value: "inherited", meaning: "Public access prevention is inherited: enforced only if the storage.publicAccessPrevention organization policy enforces it (read with the bucket).", ref: REF.bucket },
  { decoder: "storage.Bucket", path: "versioning.enabled", value: false, meaning: "Object versioning is off unless enabled.", ref: REF.bucket },
  { decoder: "storage.Bucket", path: "softDeletePolicy", meaning: "No soft delete policy reported: deleted objects are not kept.", ref: REF.bucket },
  { decoder: "storage.Bucket", path: "logging", meaning: "No usage logs are written.", ref: REF.bucket },
  { decoder: "logging.SinkBucket", path: "retentionPolicy", meaning: "The bucket has no retention policy.", ref: REF.bucket },
  { decoder: "logging.SinkBucket", path: "retentionPolicy.isLocked", value: false, meaning: "A retention policy is unlocked until locked.", ref: REF.bucket },
  // BigQuery
  { decoder: "bigquery.Table", path: "type", value: "TABLE", meaning: "The default table type is TABLE.", ref: REF.table },
  { decoder: "bigquery.Table", path: "encryptionConfiguration", meaning: "The table is encrypted with a Google-managed key.", ref: REF.table },
  { decoder: "bigquery.Dataset", path: "defaultEncryptionConfiguration", meaning: "New tables of the dataset get Google-managed encryption.", ref: REF.dataset },
  { decoder: "bigquery.Dataset", path: "access", meaning: "No access entries beyond the project's IAM (nothing public).", ref: REF.dataset },
  // Cloud KMS
  { decoder: "kms.CryptoKey", path: "purpose", value: "ENCRYPT_DECRYPT", meaning: "purpose is required at creation and always answered; an answer without it is read as a symmetric key (the CIS 1.10 subject).", ref: REF.kms },
  { decoder: "kms.CryptoKey", path: "rotationPeriod", meaning: "No automatic rotation.", ref: REF.kms },
  { decoder: "kms.CryptoKey", path: "nextRotationTime", meaning: "No rotation scheduled.", ref: REF.kms },
  // Cloud DNS
  { decoder: "dns.ManagedZone", path: "visibility", value: "public", meaning: "Zones are public unless created private.", ref: REF.zone },
  { decoder: "dns.ManagedZone", path: "dnssecConfig.state", value: "off", meaning: "DNSSEC is off unless turned on.", ref: REF.zone },
  { decoder: "dns.Policy", path: "enableLogging", value: false, meaning: "Query logging is off unless enabled.", ref: REF.dnsPolicy },
  // GKE (proto3 JSON: false booleans and first enum values are omitted)
  { decoder: "gke.Cluster", path: "privateClusterConfig.enablePrivateNodes", value: false, meaning: "Deprecated mirror of networkConfig.defaultEnablePrivateNodes: nodes have public IPs unless private nodes are on.", ref: REF.gke },
  { decoder: "gke.Cluster", path: "networkConfig.defaultEnablePrivateNodes", meaning: "Not set: the deprecated privateClusterConfig.enablePrivateNodes decides, else public nodes.", ref: REF.gke },
  { decoder: "gke.Cluster", path: "nodePools[].networkConfig.enablePrivateNodes", meaning: "If not specified, the value is derived from the cluster's networkConfig.defaultEnablePrivateNodes.", ref: REF.nodePool },
  { decoder: "gke.Cluster", path: "controlPlaneEndpointsConfig.ipEndpointsConfig.enablePublicEndpoint", meaning: "Not set: the deprecated privateClusterConfig.enablePrivateEndpoint decides (reversed), else a public endpoint.", ref: REF.gke },
  { decoder: "gke.Cluster", path: "controlPlaneEndpointsConfig.ipEndpointsConfig.enabled", meaning: "Not set: IP access to the control plane is on (proto3 omits false, so absent is read with the deprecated fields).", ref: REF.gke },
  { decoder: "gke.Cluster", path: "privateClusterConfig.enablePrivateEndpoint", value: false, meaning: "The control plane has a public endpoint unless the private endpoint is on.", ref: REF.gke },
  { decoder: "gke.Cluster", path: "masterAuthorizedNetworksConfig.enabled", value: false, meaning: "Authorized networks are off (any address reaches a public endpoint).", ref: REF.gke },
  { decoder: "gke.Cluster", path: "masterAuthorizedNetworksConfig.gcpPublicCidrsAccessEnabled", value: false, meaning: "Google Cloud public IPs are not admitted unless enabled.", ref: REF.gke },
  { decoder: "gke.Cluster", path: "masterAuthorizedNetworksConfig.cidrBlocks", meaning: "No authorised range.", ref: REF.gke },
  { decoder: "gke.Cluster", path: "networkPolicy.enabled", value: false, meaning: "Network policy enforcement is off unless enabled.", ref: REF.gke },
  { decoder: "gke.Cluster", path: "networkConfig.datapathProvider", value: "DATAPATH_PROVIDER_UNSPECIFIED", meaning: "Not Dataplane V2 (ADVANCED_DATAPATH) unless set.", ref: REF.gke },
  { decoder: "gke.Cluster", path: "workloadIdentityConfig.workloadPool", meaning: "Workload Identity is off.", ref: REF.gke },
  { decoder: "gke.Cluster", path: "legacyAbac.enabled", value: false, meaning: "Legacy ABAC is off unless enabled.", ref: REF.gke },
  { decoder: "gke.Cluster", path: "shieldedNodes.enabled", value: false, meaning: "proto3 omits false: Shielded GKE Nodes is off when absent.", ref: REF.proto3 },
  { decoder: "gke.Cluster", path: "databaseEncryption.state", value: "UNKNOWN", meaning: "Application-layer secrets encryption is not ENCRYPTED.", ref: REF.gke },
  { decoder: "gke.Cluster", path: "loggingService", value: "logging.googleapis.com/kubernetes", meaning: "Empty: Cloud Logging (logging.googleapis.com/kubernetes) is used.", ref: REF.gke },
  { decoder: "gke.Cluster", path: "monitoringService", value: "monitoring.googleapis.com/kubernetes", meaning: "Empty: Cloud Monitoring (monitoring.googleapis.com/kubernetes) is used.", ref: REF.gke },
  { decoder: "gke.Cluster", path: "nodePools[].management.autoUpgrade", value: false, meaning: "proto3 omits false: auto-upgrade is off when absent.", ref: REF.nodePool },
  { decoder: "gke.Cluster", path: "nodePools[].config.serviceAccount", value: "default", meaning: "No service account specified: the nodes run as the Compute Engine default service account.", ref: REF.nodePool },
  { decoder: "gke.Cluster", path: "nodePools[].config.workloadMetadataConfig.mode", value: "MODE_UNSPECIFIED", meaning: "Not GKE_METADATA: workloads reach the node's Compute Engine metadata server.", ref: REF.nodePool },
  // Logging and monitoring
  { decoder: "logging.LogSink", path: "filter", value: "", meaning: "No filter: the sink exports every log entry.", ref: REF.sink },
  { decoder: "logging.LogSink", path: "disabled", value: false, meaning: "A sink exports unless disabled.", ref: REF.sink },
  { decoder: "logging.LogSink", path: "exclusions", meaning: "No exclusion: nothing the filter matches is dropped.", ref: REF.sink },
  { decoder: "logging.LogSink", path: "exclusions[].disabled", value: false, meaning: "An exclusion applies unless disabled.", ref: REF.sink },
  { decoder: "logging.LogMetric", path: "disabled", value: false, meaning: "A metric counts unless disabled.", ref: REF.metric },
  { decoder: "monitoring.AlertPolicy", path: "enabled", value: true, meaning: "On write, the default interpretation if unset is that the policy is enabled.", ref: REF.alert },
  { decoder: "monitoring.AlertPolicy", path: "combiner", value: "COMBINE_UNSPECIFIED", meaning: "Unspecified combiner: with one condition the policy fires on it; several are read as OR.", ref: REF.alert },
  // IAM, API keys, project settings, Dataproc
  { decoder: "iam.ServiceAccountKey", path: "keyType", value: "USER_MANAGED", meaning: "keys.list?keyTypes=USER_MANAGED answers user-managed keys only.", ref: REF.saKey },
  { decoder: "apikeys.Key", path: "restrictions", meaning: "No restrictions: the key may call every enabled API from anywhere.", ref: REF.apiKey },
  { decoder: "apikeys.Key", path: "createTime", meaning: "No creation time: the key's age is unknown (not judged fresh).", ref: REF.apiKey },
  { decoder: "project.Contact", path: "notificationCategorySubscriptions", meaning: "The contact receives no category.", ref: REF.contacts },
  { decoder: "project.Contact", path: "validationState", value: "VALIDATION_STATE_UNSPECIFIED", meaning: "Not marked INVALID: the contact counts.", ref: REF.contacts },
  { decoder: "project.AccessApprovalSettings", path: "enrolledServices", meaning: "No service is enrolled at the project: Access Approval is off unless an ancestor enrolled services (enrolledAncestor).", ref: REF.accessApproval },
  { decoder: "project.AccessApprovalSettings", path: "enrolledAncestor", value: false, meaning: "Output only; unset means no folder or organization above the project enrolled services.", ref: REF.accessApproval },
  { decoder: "dataproc.Cluster", path: "config.encryptionConfig", meaning: "Persistent disks are encrypted with a Google-managed key.", ref: REF.dataproc },
  // Secret Manager, Cloud Functions, Artifact Registry
  { decoder: "secretmanager.Secret", path: "rotation", meaning: "No rotation schedule: Secret Manager never notifies a rotation.", ref: REF.secret },
  { decoder: "secretmanager.Secret", path: "rotation.rotationPeriod", meaning: "Input only, so often absent from answers: the schedule is then judged by nextRotationTime alone.", ref: REF.secret },
  { decoder: "cloudfunctions.Function", path: "serviceConfig.serviceAccountEmail", meaning: "If empty, defaults to PROJECT_NUMBER-compute@developer.gserviceaccount.com (2nd gen) or PROJECT_ID@appspot.gserviceaccount.com (1st gen).", ref: REF.function },
  { decoder: "artifactregistry.Repository", path: "mode", value: "STANDARD_REPOSITORY", meaning: "Repositories are standard unless created as remote or virtual.", ref: REF.repository },
  { decoder: "artifactregistry.Repository", path: "kmsKeyName", meaning: "The repository is encrypted with a Google-managed key.", ref: REF.repository },
]

/** The fillable defaults of one decoder. */
export const fillableDefaults = (decoder: GcpDecoderName): ReadonlyArray<FieldDefault & { readonly value: string | number | boolean }> =>
  gcpFieldDefaults.filter((d): d is FieldDefault & { readonly value: string | number | boolean } => d.decoder === decoder && d.value !== undefined)

/**
 * A copy of `value` with the documented default written wherever the field at `path` is absent (intermediate
 * objects are created; `[]` descends into every element of an existing list). Only the given entries are filled.
 */
export function fillDefaults<T>(value: T, entries: ReadonlyArray<Pick<FieldDefault, "path" | "value">>): T {
  let out: unknown = value
  for (const e of entries) if (e.value !== undefined) out = fillPath(out, e.path.split("."), e.value)
  return out as T
}

function fillPath(node: unknown, segments: ReadonlyArray<string>, value: unknown): unknown {
  const [head, ...rest] = segments
  if (head === undefined) return node
  const record = (node ?? {}) as Record<string, unknown>
  if (head.endsWith("[]")) {
    const key = head.slice(0, -2)
    const list = record[key]
    if (!Array.isArray(list)) return node
    return { ...record, [key]: list.map((item: unknown) => fillPath(item, rest, value)) }
  }
  if (rest.length === 0) return record[head] === undefined ? { ...record, [head]: value } : node
  return { ...record, [head]: fillPath(record[head], rest, value) }
}
