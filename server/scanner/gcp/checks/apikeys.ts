/** API key checks (CIS GCP v4.0 1.12, 1.14, 1.15). */
import { ageDays, row } from "../../rest/engine.ts"
import { defineGcpCheck } from "../define-check.ts"

const keyId = (name: string) => name.slice(name.lastIndexOf("/") + 1)

export const apikeysChecks = [
  defineGcpCheck({
    id: "apikeys_no_keys_exist",
    service: "apikeys",
    title: "API keys should only exist for active services",
    description: "API keys are bearer secrets without an identity; the benchmark expects none unless a service truly needs one. Every key is reported for review.",
    severity: "low",
    cis: "1.12",
    remediation: "Delete API keys that no active service uses (gcloud services api-keys delete KEY_ID) and prefer service accounts or OAuth.",
    field_labels: { display_name: "Name", created: "Created" },
    uses: ["apikeys.keys"],
    reads: "apikeys v2 projects.locations.keys.list (locations/global) → keys[]",
    evaluate: (inv) => {
      const keys = inv.apikeys.keys
      if (keys === undefined) return []
      if (keys.length === 0) return [row(inv.projectId, "global", true, "The project has no API keys.", { display_name: null, created: null })]
      return keys.map((k) => row(keyId(k.name), "global", false, `API key ${k.displayName ?? keyId(k.name)} exists; confirm an active service needs it.`, { display_name: k.displayName ?? null, created: k.createTime ?? null }))
    },
  }),
  defineGcpCheck({
    id: "apikeys_api_restrictions_configured",
    service: "apikeys",
    title: "API keys should be restricted to only the APIs the application needs",
    description: "Flags API keys without API target restrictions, or whose targets include cloudapis.googleapis.com (every Google API).",
    severity: "medium",
    cis: "1.14",
    remediation: "Restrict each key to the APIs it calls (gcloud services api-keys update KEY_ID --api-target=service=SERVICE).",
    field_labels: { api_targets: "API targets" },
    uses: ["apikeys.keys"],
    reads: "apikeys keys[].restrictions.apiTargets[].service",
    evaluate: (inv) =>
      (inv.apikeys.keys ?? []).map((k) => {
        const targets = (k.restrictions?.apiTargets ?? []).map((t) => t.service)
        const ok = targets.length > 0 && !targets.includes("cloudapis.googleapis.com")
        return row(keyId(k.name), "global", ok, targets.length === 0 ? "The key can call every enabled API." : ok ? `The key is limited to ${targets.join(", ")}.` : "The key is allowed to call all Google Cloud APIs.", { api_targets: targets })
      }),
  }),
  defineGcpCheck({
    id: "apikeys_key_rotated_90_days",
    service: "apikeys",
    title: "API keys should be rotated every 90 days",
    description: "Checks the age of every API key (createTime).",
    severity: "medium",
    cis: "1.15",
    remediation: "Create a replacement key, move clients to it, and delete the old key.",
    field_labels: { created: "Created", age_days: "Age (days)" },
    uses: ["apikeys.keys"],
    reads: "apikeys keys[].createTime",
    evaluate: (inv, env) =>
      (inv.apikeys.keys ?? []).map((k) => {
        const age = ageDays(k.createTime, env.now)
        return row(keyId(k.name), "global", age !== undefined && age <= 90, age === undefined ? "The key has no creation time." : `The key is ${age} days old.`, { created: k.createTime ?? null, age_days: age ?? null })
      }),
  }),
]
