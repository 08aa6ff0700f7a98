/** Cloud Functions checks (beyond CIS GCP Foundations): no public invoker, a dedicated runtime service account. */
import { row } from "../../rest/engine.ts"
import { publicGrants } from "../context.ts"
import { defineGcpCheck } from "../define-check.ts"

const fnId = (name: string) => name.slice(name.lastIndexOf("/") + 1)

export const cloudfunctionsChecks = [
  defineGcpCheck({
    id: "cloudfunctions_function_not_public",
    service: "cloudfunctions",
    title: "Cloud Functions should not be invocable by anyone",
    description: "Flags functions whose IAM policy, or (2nd gen) the policy of the Cloud Run service behind them, grants a role such as Cloud Functions Invoker or Cloud Run Invoker to allUsers or allAuthenticatedUsers: anyone on the internet can call them.",
    severity: "high",
    remediation: "gcloud functions remove-iam-policy-binding FUNCTION --region=REGION --member=allUsers --role=roles/cloudfunctions.invoker (2nd gen: gcloud run services remove-iam-policy-binding SERVICE --region=REGION --member=allUsers --role=roles/run.invoker), and grant the invoker role to the callers' identities.",
    field_labels: { public_grants: "Public grants" },
    uses: ["cloudfunctions.functions", "cloudfunctions.function_policies"],
    reads: "cloudfunctions v2 functions.getIamPolicy and run v2 services.getIamPolicy (serviceConfig.service) → bindings[].members ∋ allUsers|allAuthenticatedUsers",
    evaluate: (inv) =>
      (inv.cloudfunctions.functions ?? []).flatMap((f) => {
        if (f.policy === undefined) return []
        const grants = publicGrants(f.policy)
        return [row(fnId(f.name), f.location, grants.length === 0, grants.length === 0 ? "Only named identities may invoke the function." : `Anyone may invoke the function: ${grants.join(", ")}.`, { public_grants: grants })]
      }),
  }),
  defineGcpCheck({
    id: "cloudfunctions_function_not_default_sa",
    service: "cloudfunctions",
    title: "Cloud Functions should not run as the default Compute Engine service account",
    description: "Checks each function's runtime service account: when none is set (absent), a 2nd gen function runs as PROJECT_NUMBER-compute@developer.gserviceaccount.com and a 1st gen one as PROJECT_ID@appspot.gserviceaccount.com; both default accounts hold Editor on the project by default, so any code or dependency of the function can change the project.",
    severity: "medium",
    remediation: "Create a least-privileged service account and redeploy: gcloud functions deploy FUNCTION --service-account=SA_EMAIL …",
    field_labels: { service_account: "Service account" },
    uses: ["cloudfunctions.functions"],
    reads: "cloudfunctions v2 functions.list → environment, serviceConfig.serviceAccountEmail (absent = the generation's default service account)",
    evaluate: (inv) =>
      (inv.cloudfunctions.functions ?? []).map((f) => {
        const gen1 = f.environment === "GEN_1"
        const sa = f.serviceConfig?.serviceAccountEmail ?? (gen1 ? `${inv.projectId}@appspot.gserviceaccount.com` : `${inv.projectNumber}-compute@developer.gserviceaccount.com`)
        const compute = /^\d+-compute@developer\.gserviceaccount\.com$/.test(sa)
        const appEngine = /@appspot\.gserviceaccount\.com$/.test(sa)
        const isDefault = compute || appEngine
        return row(fnId(f.name), f.location, !isDefault, compute ? "The function runs as the default Compute Engine service account." : appEngine ? "The function runs as the App Engine default service account." : `The function runs as ${sa}.`, { service_account: sa })
      }),
  }),
]
