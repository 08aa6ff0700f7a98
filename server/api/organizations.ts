/**
 * The `organizations` group (beyond the spec, issue 31; src/contracts/organizations.ts, docs/organizations.md).
 */
import { Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../../src/contracts/api.ts"
import { AuthConfigFromApp } from "../auth/identity-layer.ts"
import { fillNotImplemented } from "./not-implemented.ts"

export const OrganizationsHandlers = HttpApiBuilder.group(Api, "organizations", (handlers) => fillNotImplemented(handlers)).pipe(
  Layer.provide(AuthConfigFromApp),
)
