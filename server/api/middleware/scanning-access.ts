/**
 * Who may call what in the scanning area (scanning §6), declared once and used next to each handler:
 * - reads (accounts, scans, findings, export): read_only, or any of the scanning permissions;
 * - adding/deleting accounts and revealing a secret: create_account;
 * - launching and canceling scans: scan_service ('Permission denied: Cannot launch scans');
 * - remediation: remediate_findings ("You don't have permission to remediate findings").
 *
 * `scoped` runs a handler body inside `inWorkspace` (authentication, X-Workspace-ID membership, RLS transaction,
 * permission) and turns database failures into defects (500 with a generic message; details go to the log).
 */
import { Effect } from "effect"
import type { HttpServerRequest } from "effect/http"
import { Forbidden } from "../../../src/contracts/errors.ts"
import { anyMember, anyOf, inWorkspace, type Policy, type WorkspaceContext } from "./workspace-scope.ts"

export const READ: Policy = anyOf("read_only", "create_account", "scan_service", "remediate_findings")
export const MANAGE_ACCOUNTS: Policy = anyOf("create_account")
export const LAUNCH_SCANS: Policy = anyOf("scan_service")
export const REMEDIATE: Policy = anyOf("remediate_findings")
export const MEMBER: Policy = anyMember

/** `inWorkspace` with SqlError as a defect and, optionally, the spec's own text for a refused permission. */
export const scoped = <A, E, R>(
  request: HttpServerRequest.HttpServerRequest,
  policy: Policy,
  body: (ctx: WorkspaceContext) => Effect.Effect<A, E, R>,
  forbiddenMessage?: string,
) =>
  inWorkspace(request, policy, body).pipe(
    Effect.catchTag("SqlError", (error) => Effect.die(error)),
    Effect.mapError((error) =>
      error instanceof Forbidden && forbiddenMessage !== undefined
        ? new Forbidden({ message: forbiddenMessage, ...(error.permission === undefined ? {} : { permission: error.permission }) })
        : error),
  )
