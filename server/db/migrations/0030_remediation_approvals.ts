/**
 * Approval of remediations, four eyes (issue 32; docs/remediation-approvals.md): an account marked as requiring
 * approval turns "Remediate" into a request that another member holding remediate_findings approves or rejects, that
 * expires after the account's set time, and before whose approval nothing runs.
 *
 * - `accounts.requires_approval` (default off) and `accounts.approval_expiry_hours` (default 72, 1–720): the account's
 *   setting, changed by members who can edit accounts (create_account).
 * - `remediation_requests`: one request to remediate rows of one finding. `rows` holds what the remediate call named of
 *   each row (resource_id, region, result_seq), so approval runs exactly those rows through the same path as a
 *   remediation without approval (server/scans/remediation.ts `requestRemediation`), and `remediation_ids` the
 *   remediations approval started. `state`: pending → approved | rejected | expired | cancelled (withdrawn by the
 *   requester); every state but pending is final and names who decided (none for an expiry) and when.
 *   At most one pending request per (finding, resource, region) — a partial unique index on the first row's resource,
 *   the remediate call naming one row.
 *
 * Row-level security as in migration 0002, the account-group limit of migration 0023 on `account_id` (a member limited
 * to account groups sees and decides only requests of allowed accounts), the read-cache triggers of migration 0014,
 * and a read-only policy for the posture ticker's system scope (it lists the workspaces holding requests past their
 * expiry, then expires them in each workspace's own scope, as it does for abandoned remediations, migration 0013).
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const allows = (col: string) => `(SELECT app_account_limit()) IS NULL OR ${col} = ANY ((SELECT app_account_limit())::integer[])`

const statements = [
  `ALTER TABLE accounts
     ADD COLUMN requires_approval boolean NOT NULL DEFAULT false,
     ADD COLUMN approval_expiry_hours integer NOT NULL DEFAULT 72 CHECK (approval_expiry_hours BETWEEN 1 AND 720)`,

  `CREATE TABLE remediation_requests (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     workspace_id integer NOT NULL,
     account_id integer NOT NULL,
     finding_id integer NOT NULL,
     check_id text NOT NULL,
     resource_id text NOT NULL,
     region text NOT NULL,
     rows jsonb NOT NULL CHECK (jsonb_typeof(rows) = 'array' AND jsonb_array_length(rows) >= 1),
     comment text CHECK (length(comment) <= 1000),
     state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'approved', 'rejected', 'expired', 'cancelled')),
     requested_by integer REFERENCES users (id) ON DELETE SET NULL,
     requested_at timestamptz NOT NULL DEFAULT now(),
     expires_at timestamptz NOT NULL,
     decided_by integer REFERENCES users (id) ON DELETE SET NULL,
     decided_at timestamptz,
     decision_comment text CHECK (length(decision_comment) <= 1000),
     remediation_ids integer[] NOT NULL DEFAULT '{}',
     CHECK ((state = 'pending') = (decided_at IS NULL)),
     CHECK (expires_at > requested_at),
     UNIQUE (id, workspace_id),
     FOREIGN KEY (account_id, workspace_id) REFERENCES accounts (id, workspace_id) ON DELETE CASCADE,
     FOREIGN KEY (finding_id, workspace_id) REFERENCES findings (id, workspace_id) ON DELETE CASCADE
   )`,
  `CREATE INDEX remediation_requests_inbox_idx ON remediation_requests (workspace_id, state, requested_at DESC, id DESC)`,
  `CREATE INDEX remediation_requests_finding_idx ON remediation_requests (finding_id)`,
  `CREATE INDEX remediation_requests_expiry_idx ON remediation_requests (expires_at) WHERE state = 'pending'`,
  `CREATE UNIQUE INDEX remediation_requests_one_pending ON remediation_requests (finding_id, resource_id, region) WHERE state = 'pending'`,

  `ALTER TABLE remediation_requests ENABLE ROW LEVEL SECURITY`,
  `ALTER TABLE remediation_requests FORCE ROW LEVEL SECURITY`,
  `CREATE POLICY remediation_requests_scope ON remediation_requests FOR ALL USING (workspace_id = app_current_workspace_id())
     WITH CHECK (workspace_id = app_current_workspace_id())`,
  `CREATE POLICY remediation_requests_groups ON remediation_requests AS RESTRICTIVE FOR ALL USING (${allows("account_id")})
     WITH CHECK (${allows("account_id")})`,
  `CREATE POLICY remediation_requests_ticker ON remediation_requests FOR SELECT USING (app_system_scope() = 'posture-ticker')`,
  ...([["insert", "NEW TABLE AS new_rows"], ["update", "NEW TABLE AS new_rows"], ["delete", "OLD TABLE AS old_rows"]] as const).map(
    ([event, referencing]) => `CREATE TRIGGER remediation_requests_note_${event} AFTER ${event.toUpperCase()} ON remediation_requests
       REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION note_workspace_change()`,
  ),
  `CREATE TRIGGER remediation_requests_note_truncate AFTER TRUNCATE ON remediation_requests
     FOR EACH STATEMENT EXECUTE FUNCTION note_workspace_change()`,
  `GRANT SELECT, INSERT, UPDATE, DELETE ON remediation_requests TO cloud_audit_app`,
  `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO cloud_audit_app`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
