/**
 * Every GCP check against the fake Google Cloud, through the whole path (key → JWT → token endpoint → REST pages →
 * schema decoding → checks): the hardened project passes every check with a compliant row, the insecure project
 * fails every check with a non-compliant row, and the named resources land on the expected side.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { gcpChecks, gcpServices, listGcpChecks, scannableGcpServices } from "../../server/scanner/gcp/catalogue.ts"
import type { GcpScanResult } from "../../server/scanner/gcp/scan-service.ts"
import { hardenedProject, insecureProject } from "./gcp-fixtures.ts"
import { expectRows, findingOf, rowOf, startGcpFixture, type GcpFixture } from "./helpers.ts"

let fx: GcpFixture
let hardened: GcpScanResult[]
let insecure: GcpScanResult[]

beforeAll(async () => {
  fx = await startGcpFixture([hardenedProject(), insecureProject()])
  const services = scannableGcpServices().map((s) => s.id)
  ;[hardened, insecure] = await Promise.all([
    Promise.all(services.map((s) => fx.scan("hardened-proj", s))),
    Promise.all(services.map((s) => fx.scan("insecure-proj", s))),
  ])
})

afterAll(async () => {
  await fx.close()
})

describe("GCP catalogue", () => {
  it("implements the 72 automated CIS GCP v4.0 recommendations, one check each, and checks beyond the benchmark without CIS references", () => {
    const cis = gcpChecks.filter((c) => c.cisRefs["v4"] !== undefined)
    expect(cis.length).toBe(72)
    expect(new Set(cis.map((c) => c.cisRefs["v4"])).size).toBe(72)
    expect(new Set(gcpChecks.map((c) => c.id)).size).toBe(gcpChecks.length)
    for (const c of gcpChecks) {
      expect(gcpServices.some((s) => s.id === c.service), c.id).toBe(true)
      expect(c.compliance.map((r) => r.framework)).toEqual(
        c.cisRefs["v4"] === undefined ? [] : ["CIS Google Cloud Platform Foundation Benchmark v4.0.0", "CIS Google Cloud Platform Foundation Benchmark v3.0.0"],
      )
    }
    expect(listGcpChecks("storage").map((c) => c.id)).toEqual(["storage_bucket_not_public", "storage_bucket_uniform_access", "storage_bucket_versioning_enabled", "storage_bucket_soft_delete_enabled", "storage_bucket_logging_enabled"])
    expect("evaluate" in (listGcpChecks()[0] ?? {})).toBe(false)
  })
})

describe("GCP checks: compliant and non-compliant case of every check", () => {
  it("the hardened project passes every check, each with at least one compliant row", () => {
    for (const c of gcpChecks) {
      const f = findingOf(hardened, c.id)
      expect(f.errors, `${c.id} errors`).toEqual([])
      expect(f.status, `${c.id}: ${JSON.stringify(f.details.map((d) => [d.resource_id, d.reason]))}`).toBe("pass")
    }
    const withoutRows = gcpChecks.filter((c) => !findingOf(hardened, c.id).details.some((d) => d.compliant))
    // Checks whose compliant case only exists next to a failing one (a key can be fresh only if keys exist).
    expect(withoutRows.map((c) => c.id).sort()).toEqual(["apikeys_api_restrictions_configured", "apikeys_key_rotated_90_days", "iam_sa_key_rotated_90_days"])
    for (const c of withoutRows) expect(findingOf(insecure, c.id).details.some((d) => d.compliant), c.id).toBe(true)
  })

  it("the insecure project fails every check with at least one non-compliant row", () => {
    for (const c of gcpChecks) {
      const f = findingOf(insecure, c.id)
      expect(f.errors, `${c.id} errors`).toEqual([])
      expect(f.status, c.id).toBe("fail")
      expect(f.details.some((d) => !d.compliant), c.id).toBe(true)
    }
  })

  it("names the editors and the personal accounts (service agents are not editors to report)", () => {
    expect(rowOf(findingOf(insecure, "iam_no_basic_editor_role"), "insecure-proj").members).toEqual(["222222222222-compute@developer.gserviceaccount.com", "bad-admin@insecure-proj.iam.gserviceaccount.com"].map((e) => `serviceAccount:${e}`))
    expect(rowOf(findingOf(insecure, "iam_members_corporate_identities_only"), "insecure-proj").members).toEqual(["user:contractor.jane@gmail.com"])
  })

  it("skips GKE nodes, proxy-only subnets, non-HTTP backends, private zones, asymmetric keys and read replicas", () => {
    for (const id of ["compute_instance_not_default_sa", "compute_instance_ip_forwarding_disabled", "compute_instance_no_public_ip"]) {
      expect(findingOf(hardened, id).details.map((d) => d.resource_id)).toEqual(["ok-vm"])
    }
    expect(findingOf(hardened, "vpc_subnet_flow_logs_enabled").details.map((d) => d.resource_id)).toEqual(["ok-subnet"])
    expect(findingOf(hardened, "vpc_lb_logging_enabled").details.map((d) => d.resource_id)).toEqual(["ok-web-backend"])
    expect(findingOf(hardened, "dns_dnssec_enabled").details.map((d) => d.resource_id)).toEqual(["ok-zone"])
    expect(findingOf(hardened, "kms_key_rotation_90_days").details.map((d) => d.resource_id)).toEqual(["projects/hardened-proj/locations/us-central1/keyRings/app-ring/cryptoKeys/ok-key"])
    // Read replicas, read pools and on-premises entries get a "Not judged" row saying why, never a failure.
    for (const id of ["cloudsql_automated_backups", "cloudsql_instance_high_availability", "cloudsql_instance_point_in_time_recovery"]) {
      for (const name of ["bad-replica", "bad-read-pool", "onprem-source"]) {
        const r = rowOf(findingOf(insecure, id), name)
        expect(r.compliant, `${id} ${name}`).toBe(true)
        expect(r.reason, `${id} ${name}`).toMatch(/^Not judged: (a read replica|a read pool instance|an on-premises entry)/)
      }
    }
    expect(rowOf(findingOf(insecure, "cloudsql_instance_ssl_required"), "onprem-source").reason).toMatch(/^Not judged: an on-premises entry/)
    expect(rowOf(findingOf(insecure, "bigquery_table_cmek"), "bad_public.sales_view")).toMatchObject({ compliant: true, reason: expect.stringMatching(/^Not judged: a logical view/) })
  })
})

describe("GCP checks: named resources", () => {
  const cases: ReadonlyArray<[string, { compliant?: string[]; nonCompliant?: string[] }]> = [
    ["iam_sa_no_user_managed_keys", { compliant: ["ok-reader@insecure-proj.iam.gserviceaccount.com"], nonCompliant: ["bad-keys@insecure-proj.iam.gserviceaccount.com"] }],
    ["iam_sa_no_admin_privileges", { compliant: ["ok-reader@insecure-proj.iam.gserviceaccount.com"], nonCompliant: ["bad-admin@insecure-proj.iam.gserviceaccount.com", "222222222222-compute@developer.gserviceaccount.com"] }],
    ["iam_sa_key_rotated_90_days", { compliant: ["okfreshkey0001"], nonCompliant: ["badoldkey0002"] }],
    ["kms_key_not_publicly_accessible", { compliant: ["projects/insecure-proj/locations/global/keyRings/main/cryptoKeys/ok-rotated"], nonCompliant: ["projects/insecure-proj/locations/global/keyRings/main/cryptoKeys/bad-public-key", "projects/insecure-proj/locations/global/keyRings/main/cryptoKeys/bad-no-rotation"] }],
    ["kms_key_rotation_90_days", { compliant: ["projects/insecure-proj/locations/global/keyRings/main/cryptoKeys/ok-rotated"], nonCompliant: ["projects/insecure-proj/locations/global/keyRings/main/cryptoKeys/bad-public-key", "projects/insecure-proj/locations/global/keyRings/main/cryptoKeys/bad-no-rotation"] }],
    ["apikeys_no_keys_exist", { nonCompliant: ["bad-unrestricted", "ok-restricted", "bad-all-apis"] }],
    ["apikeys_api_restrictions_configured", { compliant: ["ok-restricted"], nonCompliant: ["bad-unrestricted", "bad-all-apis"] }],
    ["apikeys_key_rotated_90_days", { compliant: ["ok-restricted", "bad-all-apis"], nonCompliant: ["bad-unrestricted"] }],
    ["logging_sink_bucket_retention_locked", { nonCompliant: ["insecure-logs", "gone-bucket"] }],
    ["vpc_dns_logging_enabled", { compliant: ["ok-logged-vpc"], nonCompliant: ["default", "bad-legacy-net"] }],
    ["vpc_lb_logging_enabled", { compliant: ["ok-backend"], nonCompliant: ["bad-backend"] }],
    ["vpc_no_legacy_networks", { compliant: ["default", "ok-logged-vpc"], nonCompliant: ["bad-legacy-net"] }],
    ["vpc_firewall_ssh_not_open", { compliant: ["ok-internal-ssh", "ok-udp-only", "bad-default-allow-rdp"], nonCompliant: ["bad-default-allow-ssh", "bad-all-tcp", "bad-range-v6", "bad-all-protocols"] }],
    ["vpc_firewall_rdp_not_open", { compliant: ["ok-internal-ssh", "ok-udp-only", "bad-default-allow-ssh"], nonCompliant: ["bad-default-allow-rdp", "bad-all-tcp", "bad-all-protocols", "bad-range-v6"] }],
    ["vpc_subnet_flow_logs_enabled", { compliant: ["ok-legacy-flow"], nonCompliant: ["bad-subnet"] }],
    ["vpc_firewall_redis_not_open", { compliant: ["ok-redis-internal", "ok-udp-only", "bad-dns-udp"], nonCompliant: ["bad-redis-mongo", "bad-all-tcp", "bad-all-protocols"] }],
    ["vpc_firewall_mongodb_not_open", { compliant: ["ok-redis-internal", "bad-default-allow-ssh"], nonCompliant: ["bad-redis-mongo", "bad-all-tcp"] }],
    ["vpc_firewall_mysql_not_open", { compliant: ["bad-redis-mongo", "ok-internal-ssh"], nonCompliant: ["bad-all-tcp", "bad-all-protocols"] }],
    ["vpc_firewall_dns_not_open", { compliant: ["bad-redis-mongo", "ok-udp-only"], nonCompliant: ["bad-dns-udp", "bad-all-tcp", "bad-all-protocols"] }],
    ["vpc_firewall_memcached_not_open", { compliant: ["bad-dns-udp"], nonCompliant: ["bad-all-protocols"] }],
    ["vpc_firewall_telnet_not_open", { compliant: ["bad-redis-mongo"], nonCompliant: ["bad-range-v6", "bad-all-tcp"] }],
    ["iam_no_basic_editor_role", { nonCompliant: ["insecure-proj"] }],
    ["iam_members_corporate_identities_only", { nonCompliant: ["insecure-proj"] }],
    ["vpc_firewall_all_ports_not_open", { compliant: ["bad-redis-mongo", "bad-range-v6", "ok-internal-ssh"], nonCompliant: ["bad-all-tcp", "bad-all-protocols"] }],
    ["dns_dnssec_enabled", { compliant: ["bad-sha1-zone", "ok-zone2"], nonCompliant: ["bad-zone"] }],
    ["dns_no_rsasha1_key_signing", { compliant: ["ok-zone2"], nonCompliant: ["bad-sha1-zone"] }],
    ["dns_no_rsasha1_zone_signing", { compliant: ["ok-zone2"], nonCompliant: ["bad-sha1-zone"] }],
    ["compute_instance_not_default_sa", { compliant: ["ok-custom-sa-vm"], nonCompliant: ["bad-vm"] }],
    ["compute_instance_default_sa_no_full_access", { compliant: ["ok-custom-sa-vm"], nonCompliant: ["bad-vm"] }],
    ["compute_instance_block_project_ssh_keys", { compliant: ["ok-custom-sa-vm"], nonCompliant: ["bad-vm"] }],
    ["compute_project_os_login_enabled", { nonCompliant: ["insecure-proj", "ok-custom-sa-vm"] }],
    ["compute_instance_serial_port_disabled", { compliant: ["ok-custom-sa-vm"], nonCompliant: ["bad-vm"] }],
    ["compute_instance_ip_forwarding_disabled", { compliant: ["ok-custom-sa-vm"], nonCompliant: ["bad-vm"] }],
    ["compute_disk_csek_encryption", { compliant: ["ok-csek-disk"], nonCompliant: ["bad-vm"] }],
    ["compute_instance_shielded_vm_enabled", { compliant: ["ok-custom-sa-vm"], nonCompliant: ["bad-vm"] }],
    ["compute_instance_no_public_ip", { compliant: ["ok-custom-sa-vm"], nonCompliant: ["bad-vm"] }],
    ["compute_instance_confidential_computing", { compliant: ["ok-custom-sa-vm"], nonCompliant: ["bad-vm"] }],
    ["storage_bucket_not_public", { compliant: ["ok-pap-bucket"], nonCompliant: ["insecure-logs"] }],
    ["storage_bucket_uniform_access", { compliant: ["ok-pap-bucket"], nonCompliant: ["insecure-logs"] }],
    ["cloudsql_mysql_skip_show_database_on", { compliant: ["ok-mysql2"], nonCompliant: ["bad-mysql"] }],
    ["cloudsql_mysql_local_infile_off", { compliant: ["ok-mysql2"], nonCompliant: ["bad-mysql"] }],
    ["cloudsql_postgres_log_error_verbosity", { compliant: ["ok-postgres2"], nonCompliant: ["bad-postgres"] }],
    ["cloudsql_postgres_log_connections_on", { compliant: ["ok-postgres2"], nonCompliant: ["bad-postgres"] }],
    ["cloudsql_postgres_log_disconnections_on", { compliant: ["ok-postgres2"], nonCompliant: ["bad-postgres"] }],
    ["cloudsql_postgres_log_statement_ddl", { compliant: ["ok-postgres2"], nonCompliant: ["bad-postgres"] }],
    ["cloudsql_postgres_log_min_messages", { compliant: ["ok-postgres2"], nonCompliant: ["bad-postgres"] }],
    ["cloudsql_postgres_log_min_error_statement", { compliant: ["ok-postgres2"], nonCompliant: ["bad-postgres"] }],
    ["cloudsql_postgres_log_min_duration_statement_disabled", { compliant: ["ok-postgres2"], nonCompliant: ["bad-postgres"] }],
    ["cloudsql_postgres_pgaudit_on", { compliant: ["ok-postgres2"], nonCompliant: ["bad-postgres"] }],
    ["cloudsql_sqlserver_external_scripts_off", { compliant: ["ok-sqlserver2"], nonCompliant: ["bad-sqlserver"] }],
    ["cloudsql_sqlserver_cross_db_ownership_chaining_off", { compliant: ["ok-sqlserver2"], nonCompliant: ["bad-sqlserver"] }],
    ["cloudsql_sqlserver_user_connections_unlimited", { compliant: ["ok-sqlserver2"], nonCompliant: ["bad-sqlserver"] }],
    ["cloudsql_sqlserver_user_options_unset", { compliant: ["ok-sqlserver2"], nonCompliant: ["bad-sqlserver"] }],
    ["cloudsql_sqlserver_remote_access_off", { compliant: ["ok-sqlserver2"], nonCompliant: ["bad-sqlserver"] }],
    ["cloudsql_sqlserver_trace_flag_3625_on", { compliant: ["ok-sqlserver2"], nonCompliant: ["bad-sqlserver"] }],
    ["cloudsql_sqlserver_contained_db_auth_off", { compliant: ["ok-sqlserver2"], nonCompliant: ["bad-sqlserver"] }],
    ["cloudsql_instance_ssl_required", { compliant: ["ok-mysql2", "bad-postgres"], nonCompliant: ["bad-mysql"] }],
    ["cloudsql_no_public_authorized_networks", { compliant: ["ok-mysql2"], nonCompliant: ["bad-mysql"] }],
    ["cloudsql_no_public_ip", { compliant: ["ok-mysql2"], nonCompliant: ["bad-mysql"] }],
    ["cloudsql_automated_backups", { compliant: ["ok-mysql2"], nonCompliant: ["bad-mysql"] }],
    ["bigquery_dataset_not_public", { nonCompliant: ["bad_public"] }],
    ["bigquery_table_cmek", { compliant: ["bad_public.ok_cmek_table"], nonCompliant: ["bad_public.bad_table"] }],
    ["bigquery_dataset_default_cmek", { nonCompliant: ["bad_public"] }],
    ["dataproc_cluster_cmek", { nonCompliant: ["bad-cluster"] }],
  ]
  for (const [id, c] of cases) {
    it(id, () => {
      expectRows(findingOf(insecure, id), c)
    })
  }

  it("explains why: missing audit log types, exempted members, alert-less metrics and partial filters", () => {
    expect(rowOf(findingOf(insecure, "logging_audit_logs_all_services"), "insecure-proj").reason).toBe("Audit logs for allServices lack DATA_READ.")
    expect(rowOf(findingOf(insecure, "logging_metric_alert_firewall_changes"), "insecure-proj").reason).toBe("Metric fw-changes has no enabled alert policy.")
    expect(rowOf(findingOf(insecure, "logging_metric_alert_route_changes"), "insecure-proj").reason).toBe("Metric route-changes has no enabled alert policy.")
    expect(rowOf(findingOf(insecure, "logging_metric_alert_custom_role_changes"), "insecure-proj").reason).toBe("No log metric or log-match alert matches custom role changes.")
    expect(rowOf(findingOf(hardened, "logging_metric_alert_bucket_iam_changes"), "hardened-proj")).toMatchObject({ metrics: ["bucket-iam-changes"], alert_policies: ["bucket-iam-changes alert"] })
    expect(rowOf(findingOf(insecure, "iam_essential_contacts_configured"), "insecure-proj")).toMatchObject({ missing_categories: ["LEGAL", "SECURITY", "SUSPENSION", "TECHNICAL_INCIDENTS"] })
    expect(rowOf(findingOf(insecure, "compute_instance_serial_port_disabled"), "bad-vm")).toMatchObject({ serial_port_enable: "true", source: "project" })
    expect(rowOf(findingOf(insecure, "cloudsql_postgres_log_disconnections_on"), "bad-postgres").reason).toBe("'log_disconnections' is not set (Cloud SQL default).")
    expect(rowOf(findingOf(insecure, "iam_sa_key_rotated_90_days"), "badoldkey0002")).toMatchObject({ age_days: 400, service_account: "bad-keys@insecure-proj.iam.gserviceaccount.com" })
  })

  it("reports regions and zones on rows, and counts the resources read", () => {
    expect(rowOf(findingOf(insecure, "compute_instance_no_public_ip"), "bad-vm")).toMatchObject({ region: "us-central1-a", external_ips: ["34.72.1.2"] })
    expect(rowOf(findingOf(insecure, "vpc_subnet_flow_logs_enabled"), "ok-legacy-flow").region).toBe("europe-west1")
    expect(rowOf(findingOf(insecure, "storage_bucket_uniform_access"), "insecure-logs").region).toBe("us-central1")
    const compute = insecure.find((r) => r.service === "compute")!
    expect(compute.resourcesScanned).toBeGreaterThanOrEqual(5)
    expect(compute.accountId).toBe("insecure-proj")
    expect(compute.projectNumber).toBe("222222222222")
  })
})
