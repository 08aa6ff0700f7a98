/** Cloud DNS checks (CIS GCP v4.0 3.3–3.5): DNSSEC on public zones, no RSASHA1 signing keys. */
import { row } from "../../rest/engine.ts"
import { defineGcpCheck } from "../define-check.ts"
import type { ManagedZone } from "../collectors/dns.ts"

const isPublic = (z: ManagedZone) => (z.visibility ?? "public") === "public"

const rsasha1Check = (id: string, cis: string, keyType: "keySigning" | "zoneSigning") =>
  defineGcpCheck({
    id,
    service: "dns",
    title: `RSASHA1 should not be used for the ${keyType === "keySigning" ? "key-signing" : "zone-signing"} key in Cloud DNS DNSSEC`,
    description: `Checks the default ${keyType} key specs of every DNSSEC-enabled zone use an algorithm other than RSASHA1.`,
    severity: "medium",
    cis,
    remediation: `Turn DNSSEC off, then on again with a strong algorithm: gcloud dns managed-zones update ZONE --dnssec-state=on --${keyType === "keySigning" ? "ksk" : "zsk"}-algorithm=rsasha256 --${keyType === "keySigning" ? "ksk" : "zsk"}-key-length=2048 (update the DS record at the registrar).`,
    field_labels: { algorithms: "Algorithms" },
    uses: ["dns.managed_zones"],
    reads: `dns managedZones.list → dnssecConfig.defaultKeySpecs[keyType=${keyType}].algorithm`,
    evaluate: (inv) =>
      (inv.dns.managedZones ?? [])
        .filter((z) => z.dnssecConfig?.state === "on" || z.dnssecConfig?.state === "transfer")
        .map((z) => {
          const algorithms = (z.dnssecConfig?.defaultKeySpecs ?? []).filter((k) => k.keyType === keyType).map((k) => (k.algorithm ?? "").toLowerCase())
          const weak = algorithms.includes("rsasha1")
          return row(z.name, "global", !weak, weak ? `Zone ${z.dnsName ?? z.name} signs with RSASHA1.` : `Zone ${z.dnsName ?? z.name} does not use RSASHA1.`, { algorithms })
        }),
  })

export const dnsChecks = [
  defineGcpCheck({
    id: "dns_dnssec_enabled",
    service: "dns",
    title: "DNSSEC should be enabled for Cloud DNS public zones",
    description: "Checks every public managed zone has DNSSEC turned on, protecting resolvers against spoofed answers.",
    severity: "medium",
    cis: "3.3",
    remediation: "gcloud dns managed-zones update ZONE --dnssec-state=on, then publish the DS record at the registrar.",
    field_labels: { dns_name: "DNS name", dnssec_state: "DNSSEC state" },
    uses: ["dns.managed_zones"],
    reads: "dns managedZones.list → visibility == public, dnssecConfig.state",
    evaluate: (inv) =>
      (inv.dns.managedZones ?? []).filter(isPublic).map((z) => {
        const state = z.dnssecConfig?.state ?? "off"
        return row(z.name, "global", state === "on", state === "on" ? "DNSSEC is on." : `DNSSEC is ${state}.`, { dns_name: z.dnsName ?? null, dnssec_state: state })
      }),
  }),
  rsasha1Check("dns_no_rsasha1_key_signing", "3.4", "keySigning"),
  rsasha1Check("dns_no_rsasha1_zone_signing", "3.5", "zoneSigning"),
]
