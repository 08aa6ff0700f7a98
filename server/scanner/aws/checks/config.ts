/** AWS Config checks (CIS AWS v3.0 3.3 / v7.0 4.3, FSBP Config.1). */
import { defineCheck, row } from "../define-check.ts"

export const configChecks = [
  defineCheck({
    id: "config_recorder_all_regions_enabled",
    service: "config",
    title: "AWS Config should be enabled in all regions",
    description: "Checks, for each scanned region, that a configuration recorder records all supported resource types, is recording, and its last delivery did not fail.",
    severity: "medium",
    cis: { v3: "3.3", v7: "4.3" },
    fsbp: "Config.1",
    remediation: "In each region: create a delivery channel (S3 bucket), put a configuration recorder with allSupported=true (and includeGlobalResourceTypes in one region), then start it.",
    field_labels: { recorder: "Recorder", recording: "Recording", all_supported: "All resource types", last_status: "Last status" },
    uses: ["config.recorders"],
    testedWith: "moto",
    evaluate: (inv) =>
      inv.config.regions.flatMap((r) => {
        if (r.recorders === undefined) return []
        const rec = r.recorders[0]
        const ok = rec !== undefined && rec.recording && rec.allSupported && rec.lastStatus !== "FAILURE" && rec.lastStatus !== "Failure"
        return [
          row(
            `${inv.accountId}/${r.region}`,
            r.region,
            ok,
            rec === undefined
              ? `No configuration recorder exists in ${r.region}.`
              : !rec.recording
                ? `Recorder ${rec.name} in ${r.region} is not recording.`
                : !rec.allSupported
                  ? `Recorder ${rec.name} in ${r.region} does not record all resource types.`
                  : ok
                    ? `Recorder ${rec.name} records all resource types in ${r.region}.`
                    : `Recorder ${rec.name} in ${r.region} last failed to deliver.`,
            { recorder: rec?.name ?? null, recording: rec?.recording ?? false, all_supported: rec?.allSupported ?? false, last_status: rec?.lastStatus ?? null },
          ),
        ]
      }),
  }),
]
