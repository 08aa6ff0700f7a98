/**
 * Documented defaults, property-tested over every GCP check (issue 29). Answers are generated from the decoders'
 * schemas (which tests/scanner-gcp/official-models.test.ts checks against Google's own models), with every
 * optional field present or absent at random and enum fields drawn from the values the official references document.
 * For each answer, a random subset of the documented defaults (server/scanner/gcp/defaults.ts) is filled in
 * wherever the field is absent; every check must decide the same (same rows, same verdicts) on both answers.
 * A check that reads absence as anything but the documented default fails here with the shrunk counterexample.
 */
import fc from "fast-check"
import { Schema, SchemaAST } from "effect"
import { describe, expect, it } from "vitest"
import type { DetailRow } from "../../server/scanner/check.ts"
import { gcpChecks } from "../../server/scanner/gcp/catalogue.ts"
import { IamPolicy } from "../../server/scanner/gcp/context.ts"
import { fillableDefaults, fillDefaults, gcpFieldDefaults, type GcpDecoderName } from "../../server/scanner/gcp/defaults.ts"
import type { GcpInventories, GcpScanInventory } from "../../server/scanner/gcp/inventory.ts"
import { ApiKey } from "../../server/scanner/gcp/collectors/apikeys.ts"
import { Dataset, Table } from "../../server/scanner/gcp/collectors/bigquery.ts"
import { BackendService, ComputeProject, Disk, Firewall, Instance, Network, Subnetwork } from "../../server/scanner/gcp/collectors/compute.ts"
import { Cluster } from "../../server/scanner/gcp/collectors/dataproc.ts"
import { DnsPolicy, ManagedZone } from "../../server/scanner/gcp/collectors/dns.ts"
import { GkeCluster } from "../../server/scanner/gcp/collectors/gke.ts"
import { ServiceAccount, ServiceAccountKey } from "../../server/scanner/gcp/collectors/iam.ts"
import { CryptoKey } from "../../server/scanner/gcp/collectors/kms.ts"
import { AlertPolicy, BucketRetention, LogMetric, LogSink } from "../../server/scanner/gcp/collectors/logging.ts"
import { AccessApprovalSettings, Contact } from "../../server/scanner/gcp/collectors/project.ts"
import { SqlInstance } from "../../server/scanner/gcp/collectors/sql.ts"
import { Bucket } from "../../server/scanner/gcp/collectors/storage.ts"
import { Secret } from "../../server/scanner/gcp/collectors/secretmanager.ts"
import { CloudFunction } from "../../server/scanner/gcp/collectors/cloudfunctions.ts"
import { Repository } from "../../server/scanner/gcp/collectors/artifactregistry.ts"
import { metricFilters, NOW } from "./gcp-fixtures.ts"

/** Values the official references document for the string fields the checks compare (by property name). */
const VOCABULARY: Readonly<Record<string, ReadonlyArray<string>>> = {
  instanceType: ["SQL_INSTANCE_TYPE_UNSPECIFIED", "CLOUD_SQL_INSTANCE", "ON_PREMISES_INSTANCE", "READ_REPLICA_INSTANCE", "READ_POOL_INSTANCE"],
  availabilityType: ["SQL_AVAILABILITY_TYPE_UNSPECIFIED", "ZONAL", "REGIONAL"],
  sslMode: ["SSL_MODE_UNSPECIFIED", "ALLOW_UNENCRYPTED_AND_ENCRYPTED", "ENCRYPTED_ONLY", "TRUSTED_CLIENT_CERTIFICATE_REQUIRED"],
  databaseVersion: ["MYSQL_8_0", "POSTGRES_15", "SQLSERVER_2019_STANDARD", "MYSQL_5_7", "POSTGRES_16"],
  type: ["TABLE", "VIEW", "EXTERNAL", "MATERIALIZED_VIEW", "SNAPSHOT", "PRIMARY", "PRIVATE"],
  state: ["on", "off", "transfer", "ENCRYPTED", "DECRYPTED", "UNKNOWN", "ENABLED", "DISABLED", "DESTROYED", "DESTROY_SCHEDULED", "RUNNING"],
  purpose: ["PRIVATE", "PRIVATE_RFC_1918", "REGIONAL_MANAGED_PROXY", "GLOBAL_MANAGED_PROXY", "PRIVATE_SERVICE_CONNECT", "PRIVATE_NAT", "ENCRYPT_DECRYPT", "ASYMMETRIC_SIGN", "MAC"],
  protocol: ["HTTP", "HTTPS", "HTTP2", "H2C", "TCP", "SSL", "UDP", "GRPC"],
  direction: ["INGRESS", "EGRESS"],
  IPProtocol: ["tcp", "udp", "all", "6", "17", "icmp"],
  ports: ["22", "3389", "0-65535", "20-30", "443", "6379"],
  sourceRanges: ["0.0.0.0/0", "::/0", "10.0.0.0/8", "0.0.0.0/1", "128.0.0.0/1", "35.235.240.0/20"],
  mode: ["MODE_UNSPECIFIED", "GCE_METADATA", "GKE_METADATA"],
  datapathProvider: ["DATAPATH_PROVIDER_UNSPECIFIED", "LEGACY_DATAPATH", "ADVANCED_DATAPATH"],
  visibility: ["public", "private"],
  keyType: ["keySigning", "zoneSigning", "USER_MANAGED", "SYSTEM_MANAGED"],
  algorithm: ["rsasha1", "rsasha256", "ecdsap256sha256"],
  combiner: ["COMBINE_UNSPECIFIED", "AND", "OR", "AND_WITH_MATCHING_RESOURCE"],
  publicAccessPrevention: ["inherited", "enforced", "unspecified"],
  loggingService: ["none", "logging.googleapis.com/kubernetes", "logging.googleapis.com"],
  monitoringService: ["none", "monitoring.googleapis.com/kubernetes"],
  serviceAccount: ["default", "123-compute@developer.gserviceaccount.com", "nodes@p.iam.gserviceaccount.com"],
  email: ["123-compute@developer.gserviceaccount.com", "app@p.iam.gserviceaccount.com"],
  key: ["block-project-ssh-keys", "enable-oslogin", "enable-oslogin-2fa", "serial-port-enable"],
  value: ["TRUE", "FALSE", "on", "off", "0", "-1", "0.0.0.0/0", "10.0.0.0/8", "warning", "ddl"],
  cidrBlock: ["0.0.0.0/0", "0.0.0.0/1", "128.0.0.0/1", "203.0.113.0/24"],
  role: ["roles/owner", "roles/editor", "roles/viewer", "roles/iam.serviceAccountUser", "roles/iam.serviceAccountAdmin", "roles/cloudkms.admin", "roles/cloudkms.cryptoKeyDecrypter", "READER"],
  members: ["allUsers", "allAuthenticatedUsers", "user:a@example.com", "user:b@gmail.com", "serviceAccount:app@p.iam.gserviceaccount.com", "serviceAccount:1@cloudservices.gserviceaccount.com"],
  specialGroup: ["allAuthenticatedUsers", "projectOwners"],
  iamMember: ["allUsers", "user:a@example.com"],
  service: ["allServices", "storage.googleapis.com", "cloudapis.googleapis.com", "maps.googleapis.com"],
  logType: ["ADMIN_READ", "DATA_READ", "DATA_WRITE"],
  notificationCategorySubscriptions: ["ALL", "SECURITY", "LEGAL", "SUSPENSION", "TECHNICAL", "TECHNICAL_INCIDENTS"],
  filter: [...Object.values(metricFilters), "", 'metric.type="logging.googleapis.com/user/m0"', 'metric.type="logging.googleapis.com/user/m1"'],
  query: ["fetch global::logging.googleapis.com/user/m0", "logging_googleapis_com:user_m1 > 0"],
  rotationPeriod: ["7776000s", "31536000s", "86400s"],
  nextRotationTime: ["2026-06-20T00:00:00Z", "2027-06-01T00:00:00Z"],
  serviceAccountEmail: ["123-compute@developer.gserviceaccount.com", "fn@p.iam.gserviceaccount.com"],
  createTime: ["2026-05-01T00:00:00Z", "2024-01-01T00:00:00Z"],
  validAfterTime: ["2026-05-01T00:00:00Z", "2024-01-01T00:00:00Z"],
  kmsKeyName: ["projects/p/locations/l/keyRings/r/cryptoKeys/k", ""],
  retentionDurationSeconds: ["0", "604800"],
  logBucket: ["logs", ""],
  workloadPool: ["p.svc.id.goog", ""],
  natIP: ["34.1.2.3"],
  cloudProduct: ["all", "compute.googleapis.com"],
}

/** Names of generated resources and metrics: few, so that references (metric → alert, sink → bucket) meet. */
const NAMES = ["m0", "m1", "default", "r1"]

/** A fast-check arbitrary for a decoder's Type, from its schema AST (optional keys present or absent). */
function arbitraryOf(ast: SchemaAST.AST, field = ""): fc.Arbitrary<unknown> {
  switch (ast._tag) {
    case "Objects": {
      const props: Record<string, fc.Arbitrary<unknown>> = {}
      const required: string[] = []
      for (const p of ast.propertySignatures) {
        const name = String(p.name)
        props[name] = arbitraryOf(p.type, name)
        if (p.type.context?.isOptional !== true) required.push(name)
      }
      const record = fc.record(props, { requiredKeys: required })
      const index = ast.indexSignatures[0]
      if (index === undefined) return record
      return fc.dictionary(fc.constantFrom("goog-gke-node", "env", "team"), arbitraryOf(index.type, field), { maxKeys: 2 })
    }
    case "Arrays":
      return fc.array(ast.rest[0] === undefined ? fc.constant(null) : arbitraryOf(ast.rest[0], field), { maxLength: 3 })
    case "String": {
      if (field === "name" || field === "clusterName" || field === "datasetId" || field === "tableId") return fc.constantFrom(...NAMES)
      if (field === "destination") return fc.constantFrom("storage.googleapis.com/logs-a", "storage.googleapis.com/logs-b", "bigquery.googleapis.com/projects/p/datasets/d")
      const words = VOCABULARY[field]
      return words === undefined ? fc.string({ maxLength: 6 }) : fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...words) }, { weight: 1, arbitrary: fc.string({ maxLength: 6 }) })
    }
    case "Number":
      return fc.integer({ min: 0, max: 4096 })
    case "Boolean":
      return fc.boolean()
    case "Literal":
      return fc.constant(ast.literal)
    case "Union":
      return fc.oneof(...ast.types.map((t) => arbitraryOf(t, field)))
    case "Unknown":
    case "Any":
      return fc.constant({})
    case "Null":
      return fc.constant(null)
    case "Undefined":
      return fc.constant(undefined)
    default:
      throw new Error(`No arbitrary for schema node ${ast._tag} (${field})`)
  }
}

const arb = <S extends Schema.Top>(schema: S): fc.Arbitrary<S["Type"]> => arbitraryOf(schema.ast) as fc.Arbitrary<S["Type"]>
const list = <T,>(a: fc.Arbitrary<T>) => fc.array(a, { maxLength: 3 })
const scoped = <T,>(a: fc.Arbitrary<T>) => list(fc.record({ scope: fc.constantFrom("us-central1-a", "europe-west1", "global"), item: a }))

const inventoryArb: fc.Arbitrary<GcpInventories> = fc.record({
  project: fc.record({
    iamPolicy: arb(IamPolicy),
    orgPolicies: fc.record({ "compute.disableSerialPortAccess": fc.boolean(), "storage.publicAccessPrevention": fc.boolean() }, { requiredKeys: [] }),
    ancestorPolicies: list(arb(IamPolicy).map((policy) => ({ resource: "organizations/1", policy }))),
    essentialContacts: list(arb(Contact)),
    cloudAssetState: fc.constantFrom("ENABLED", "DISABLED"),
    accessApproval: fc.option(arb(AccessApprovalSettings), { nil: null }),
  }),
  iam: fc.record({ serviceAccounts: list(fc.record({ sa: arb(ServiceAccount), keys: list(arb(ServiceAccountKey)) }).map(({ sa, keys }) => ({ ...sa, keys }))) }),
  kms: fc.record({ keys: list(fc.record({ key: arb(CryptoKey), policy: arb(IamPolicy) }).map(({ key, policy }) => ({ ...key, location: "us-central1", policy }))) }),
  apikeys: fc.record({ keys: list(arb(ApiKey)) }),
  logging: fc.record({
    sinks: list(arb(LogSink)),
    metrics: list(arb(LogMetric)),
    alertPolicies: list(arb(AlertPolicy)),
    sinkBuckets: fc.record({ a: fc.option(arb(BucketRetention), { nil: null }), b: fc.option(arb(BucketRetention), { nil: null }) }).map(({ a, b }) => new Map([["logs-a", a], ["logs-b", b]])),
  }),
  storage: fc.record({ buckets: list(fc.record({ b: arb(Bucket), policy: arb(IamPolicy) }).map(({ b, policy }) => ({ ...b, policy }))) }),
  dns: fc.record({ managedZones: list(arb(ManagedZone)), policies: list(arb(DnsPolicy)) }),
  compute: fc.record({
    project: arb(ComputeProject),
    networks: list(arb(Network)),
    firewalls: list(arb(Firewall)),
    subnetworks: scoped(arb(Subnetwork)),
    instances: scoped(arb(Instance)),
    disks: scoped(arb(Disk)),
    backendServices: scoped(arb(BackendService)),
    regions: fc.constant(["us-central1"]),
  }),
  sql: fc.record({ instances: list(arb(SqlInstance)) }),
  bigquery: fc.record({ datasets: list(arb(Dataset)), tables: list(arb(Table)) }),
  dataproc: fc.record({ clusters: list(arb(Cluster).map((c) => ({ ...c, region: "us-central1" }))) }),
  gke: fc.record({ clusters: list(arb(GkeCluster)) }),
  secretmanager: fc.record({ secrets: list(fc.record({ s: arb(Secret), policy: arb(IamPolicy) }).map(({ s, policy }) => ({ ...s, policy }))) }),
  cloudfunctions: fc.record({ functions: list(fc.record({ f: arb(CloudFunction), policy: arb(IamPolicy) }).map(({ f, policy }) => ({ ...f, location: "us-central1", policy }))) }),
  artifactregistry: fc.record({ repositories: list(fc.record({ r: arb(Repository), policy: arb(IamPolicy) }).map(({ r, policy }) => ({ ...r, location: "us-central1", policy }))) }),
}) as fc.Arbitrary<GcpInventories>

/** Fills the chosen defaults into every resource of the inventory, by the decoder each section is read with. */
function filled(inv: GcpInventories, chosen: ReadonlySet<string>): GcpInventories {
  const f = <T,>(decoder: GcpDecoderName, x: T): T => fillDefaults(x, fillableDefaults(decoder).filter((d) => chosen.has(`${d.decoder} ${d.path}`)))
  const each = <T,>(decoder: GcpDecoderName, xs: ReadonlyArray<T> | undefined) => xs?.map((x) => f(decoder, x))
  const eachScoped = <T,>(decoder: GcpDecoderName, xs: ReadonlyArray<{ scope: string; item: T }> | undefined) => xs?.map((s) => ({ ...s, item: f(decoder, s.item) }))
  return {
    ...inv,
    project: { ...inv.project, essentialContacts: each("project.Contact", inv.project.essentialContacts), accessApproval: inv.project.accessApproval == null ? inv.project.accessApproval : f("project.AccessApprovalSettings", inv.project.accessApproval) },
    iam: { serviceAccounts: inv.iam.serviceAccounts?.map((sa) => ({ ...sa, keys: each("iam.ServiceAccountKey", sa.keys) })) },
    kms: { keys: each("kms.CryptoKey", inv.kms.keys) },
    apikeys: { keys: each("apikeys.Key", inv.apikeys.keys) },
    logging: {
      sinks: each("logging.LogSink", inv.logging.sinks),
      metrics: each("logging.LogMetric", inv.logging.metrics),
      alertPolicies: each("monitoring.AlertPolicy", inv.logging.alertPolicies),
      sinkBuckets: inv.logging.sinkBuckets === undefined ? undefined : new Map([...inv.logging.sinkBuckets].map(([k, v]) => [k, v == null ? v : f("logging.SinkBucket", v)])),
    },
    storage: { buckets: each("storage.Bucket", inv.storage.buckets) },
    dns: { managedZones: each("dns.ManagedZone", inv.dns.managedZones), policies: each("dns.Policy", inv.dns.policies) },
    compute: {
      ...inv.compute,
      project: inv.compute.project === undefined ? undefined : f("compute.Project", inv.compute.project),
      networks: each("compute.Network", inv.compute.networks),
      firewalls: each("compute.Firewall", inv.compute.firewalls),
      subnetworks: eachScoped("compute.Subnetwork", inv.compute.subnetworks),
      instances: eachScoped("compute.Instance", inv.compute.instances),
      disks: eachScoped("compute.Disk", inv.compute.disks),
      backendServices: eachScoped("compute.BackendService", inv.compute.backendServices),
    },
    sql: { instances: each("sql.DatabaseInstance", inv.sql.instances) },
    bigquery: { datasets: each("bigquery.Dataset", inv.bigquery.datasets), tables: each("bigquery.Table", inv.bigquery.tables) },
    dataproc: { clusters: each("dataproc.Cluster", inv.dataproc.clusters) },
    gke: { clusters: each("gke.Cluster", inv.gke.clusters) },
    secretmanager: { secrets: each("secretmanager.Secret", inv.secretmanager.secrets) },
    cloudfunctions: { functions: each("cloudfunctions.Function", inv.cloudfunctions.functions) },
    artifactregistry: { repositories: each("artifactregistry.Repository", inv.artifactregistry.repositories) },
  }
}

const scanInventory = (inv: GcpInventories): GcpScanInventory => ({ ...inv, projectId: "p", projectNumber: "123", collectedAt: NOW, errors: [] })
const verdicts = (rows: ReadonlyArray<DetailRow>) => rows.map((r) => `${r.resource_id} ${r.region} ${r.compliant}`)
const fillableKeys = gcpFieldDefaults.filter((d) => d.value !== undefined).map((d) => `${d.decoder} ${d.path}`)

/** The inventory inputs (resource types) each decoder's resources reach the checks through. */
const INPUTS_OF: Readonly<Record<GcpDecoderName, ReadonlyArray<string>>> = {
  "compute.Instance": ["compute.instances"],
  "compute.Disk": ["compute.disks"],
  "compute.Firewall": ["compute.firewalls"],
  "compute.Subnetwork": ["compute.subnetworks"],
  "compute.Network": ["compute.networks"],
  "compute.BackendService": ["compute.backend_services"],
  "compute.Project": ["compute.project"],
  "sql.DatabaseInstance": ["sql.instances"],
  "storage.Bucket": ["storage.buckets"],
  "bigquery.Dataset": ["bigquery.datasets"],
  "bigquery.Table": ["bigquery.tables"],
  "kms.CryptoKey": ["kms.keys"],
  "dns.ManagedZone": ["dns.managed_zones"],
  "dns.Policy": ["dns.policies"],
  "gke.Cluster": ["gke.clusters"],
  "logging.LogSink": ["logging.sinks"],
  "logging.LogMetric": ["logging.metrics"],
  "monitoring.AlertPolicy": ["logging.alert_policies"],
  "logging.SinkBucket": ["logging.sink_buckets"],
  "iam.ServiceAccountKey": ["iam.keys"],
  "apikeys.Key": ["apikeys.keys"],
  "project.Contact": ["project.essential_contacts"],
  "project.AccessApprovalSettings": ["project.access_approval"],
  "dataproc.Cluster": ["dataproc.clusters"],
  "secretmanager.Secret": ["secretmanager.secrets"],
  "cloudfunctions.Function": ["cloudfunctions.functions"],
  "artifactregistry.Repository": ["artifactregistry.repositories"],
}

/** Checks that read at least one input whose decoder has a fillable documented default. */
const coveredChecks = gcpChecks.filter((c) => gcpFieldDefaults.some((d) => d.value !== undefined && INPUTS_OF[d.decoder].some((input) => c.uses.includes(input))))

describe("documented defaults", () => {
  it("every decoder path in the table names a field the decoder has", () => {
    const decoders: Readonly<Record<GcpDecoderName, Schema.Top>> = {
      "compute.Instance": Instance,
      "compute.Disk": Disk,
      "compute.Firewall": Firewall,
      "compute.Subnetwork": Subnetwork,
      "compute.Network": Network,
      "compute.BackendService": BackendService,
      "compute.Project": ComputeProject,
      "sql.DatabaseInstance": SqlInstance,
      "storage.Bucket": Bucket,
      "bigquery.Dataset": Dataset,
      "bigquery.Table": Table,
      "kms.CryptoKey": CryptoKey,
      "dns.ManagedZone": ManagedZone,
      "dns.Policy": DnsPolicy,
      "gke.Cluster": GkeCluster,
      "logging.LogSink": LogSink,
      "logging.LogMetric": LogMetric,
      "monitoring.AlertPolicy": AlertPolicy,
      "logging.SinkBucket": BucketRetention,
      "iam.ServiceAccountKey": ServiceAccountKey,
      "apikeys.Key": ApiKey,
      "project.Contact": Contact,
      "project.AccessApprovalSettings": AccessApprovalSettings,
      "dataproc.Cluster": Cluster,
      "secretmanager.Secret": Secret,
      "cloudfunctions.Function": CloudFunction,
      "artifactregistry.Repository": Repository,
    }
    for (const d of gcpFieldDefaults) {
      let ast: SchemaAST.AST = decoders[d.decoder].ast
      for (const seg of d.path.split(".")) {
        const key = seg.replace(/\[\]$/, "")
        const prop = ast._tag === "Objects" ? ast.propertySignatures.find((p) => p.name === key) : undefined
        expect(prop, `${d.decoder} ${d.path}: no field ${key}`).toBeDefined()
        expect(prop!.type.context?.isOptional, `${d.decoder} ${d.path}: ${key} is not optional`).toBe(true)
        ast = prop!.type
        if (seg.endsWith("[]")) {
          expect(ast._tag, `${d.decoder} ${d.path}: ${key} is not a list`).toBe("Arrays")
          ast = (ast as SchemaAST.Arrays).rest[0]!
        }
      }
      expect(d.ref, d.path).toMatch(/^https:\/\//)
    }
  })

  it(`every check decides the same when absent fields hold their documented default (${gcpChecks.length} checks run; those reading a defaulted field counted below)`, () => {
    const changed = new Set<string>()
    fc.assert(
      fc.property(inventoryArb, fc.subarray(fillableKeys, { minLength: 1 }), (inv, keys) => {
        const chosen = new Set(keys)
        const withDefaults = filled(inv, chosen)
        for (const c of gcpChecks) {
          const a = verdicts(c.evaluate(scanInventory(inv), { now: NOW }))
          const b = verdicts(c.evaluate(scanInventory(withDefaults), { now: NOW }))
          expect(b, `${c.id} with ${[...chosen].join("; ")}`).toEqual(a)
          if (a.length > 0 && JSON.stringify(c.uses.map((u) => sectionOf(inv, u))) !== JSON.stringify(c.uses.map((u) => sectionOf(withDefaults, u)))) changed.add(c.id)
        }
      }),
      { numRuns: 150, seed: 29 },
    )
    // Every check that reads a field with a documented default was exercised with the default both absent and filled in.
    expect(coveredChecks.filter((c) => !changed.has(c.id)).map((c) => c.id)).toEqual([])
    console.info(`defaults property: ${gcpChecks.length} checks run, ${coveredChecks.length} read a field with a fillable documented default (${fillableKeys.length} defaults, ${gcpFieldDefaults.length} table entries)`)
  })
})

/** The part of the inventory an input names (for "did filling change what this check reads"). */
function sectionOf(inv: GcpInventories, input: string): unknown {
  const [collector, part] = input.split(".") as [keyof GcpInventories, string]
  const section = inv[collector] as unknown as Record<string, unknown>
  const key = part.replace(/_([a-z])/g, (_, x: string) => x.toUpperCase())
  const aliases: Record<string, string> = { iamPolicy: "iamPolicy", keyPolicies: "keys", bucketPolicies: "buckets", backendServices: "backendServices", essentialContacts: "essentialContacts", cloudassetService: "cloudAssetState", accessApproval: "accessApproval", alertPolicies: "alertPolicies", sinkBuckets: "sinkBuckets", serviceAccounts: "serviceAccounts", keys: collector === "iam" ? "serviceAccounts" : "keys", managedZones: "managedZones", clusters: "clusters" }
  const value = section[aliases[key] ?? key] ?? section[key]
  return value instanceof Map ? [...value] : value
}
