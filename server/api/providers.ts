/**
 * The `providers` group: GET /api/cloud-providers (scanning §7) → data.cloud_providers[] with AWS=1, GCP=2, Azure=3 and
 * `is_enable` true only where a scanner exists (server/accounts/providers.ts). Any member of the workspace may read it.
 */
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../src/contracts/api.ts"
import { cloudProviders } from "../accounts/providers.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import { MEMBER, scoped } from "./middleware/scanning-access.ts"

export const ProvidersHandlers = HttpApiBuilder.group(Api, "providers", (handlers) =>
  handlers.handle("list", ({ request }) =>
    scoped(request, MEMBER, () => Effect.succeed({ ok: true, data: { cloud_providers: cloudProviders() } }))),
).pipe(Layer.provide(AuthConfigFromApp))
