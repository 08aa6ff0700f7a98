/**
 * Jira and AWS Security Hub (issue 33, parts 5 and 6; docs/integrations-jira.md, docs/integrations-security-hub.md).
 *
 * - `security_hub_settings`: per AWS account, whether each completed scan is sent to Security Hub and to which
 *   regions (`regions[1]` receives global resources and those of regions not listed), with the last export's outcome.
 * - `security_hub_findings`: what was last sent for each ASFF finding (its stable `Id`), so that an export sends only
 *   what changed: `digest` is a hash of the finding's content without its timestamps; `record_state` is ACTIVE while
 *   the resource fails, ARCHIVED once it passes or is gone; `first_sent_at` is the finding's `CreatedAt`;
 *   `resource_uid` is the ASFF `Resources[0].Id` sent (the resource's ARN when known).
 * - `jira_connections`: one Jira Cloud site per workspace (the API token sealed as cloud credentials are, under its own
 *   sub-key of APP_SECRET_KEY, bound to the workspace: server/integrations/jira-store.ts).
 * - `jira_issues`: the issue created for a finding (`resource_uid` '' = the whole finding) or one of its resources,
 *   keyed by (account, check, resource) so the findings of later scans of the same account show the same issue;
 *   `status_category` is Jira's statusCategory key ('new', 'indeterminate', 'done'), refreshed by a job.
 *
 * Row-level security and read-cache triggers as every workspace table (migrations 0002, 0014); the per-account tables
 * also get the account-group limit of migration 0023 (a member limited to groups sees only their accounts' rows).
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const TABLES = ["security_hub_settings", "security_hub_findings", "jira_connections", "jira_issues"] as const
const PER_ACCOUNT = ["security_hub_settings", "security_hub_findings", "jira_issues"] as const

const allows = (col: string) => `(SELECT app_account_limit()) IS NULL OR ${col} = ANY ((SELECT app_account_limit())::integer[])`

const statements = [
  `CREATE TABLE security_hub_settings (
     account_id integer PRIMARY KEY,
     workspace_id integer NOT NULL,
     enabled boolean NOT NULL DEFAULT false,
     regions text[] NOT NULL DEFAULT '{}' CHECK (cardinality(regions) <= 32),
     updated_by integer REFERENCES users (id) ON DELETE SET NULL,
     updated_at timestamptz NOT NULL DEFAULT now(),
     last_export_at timestamptz,
     last_export_scan_id integer,
     last_export_status text CHECK (last_export_status IN ('ok', 'partial', 'failed')),
     last_export_message text,
     last_sent integer NOT NULL DEFAULT 0,
     last_archived integer NOT NULL DEFAULT 0,
     last_failed integer NOT NULL DEFAULT 0,
     FOREIGN KEY (account_id, workspace_id) REFERENCES accounts (id, workspace_id) ON DELETE CASCADE
   )`,
  `CREATE INDEX security_hub_settings_workspace_idx ON security_hub_settings (workspace_id)`,

  `CREATE TABLE security_hub_findings (
     account_id integer NOT NULL,
     workspace_id integer NOT NULL,
     finding_uid text NOT NULL CHECK (length(finding_uid) BETWEEN 1 AND 512),
     region text NOT NULL,
     check_id text NOT NULL,
     resource_uid text NOT NULL,
     record_state text NOT NULL CHECK (record_state IN ('ACTIVE', 'ARCHIVED')),
     digest text NOT NULL,
     first_sent_at timestamptz NOT NULL DEFAULT now(),
     sent_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (account_id, finding_uid),
     FOREIGN KEY (account_id, workspace_id) REFERENCES accounts (id, workspace_id) ON DELETE CASCADE
   )`,

  `CREATE TABLE jira_connections (
     workspace_id integer PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
     site_url text NOT NULL CHECK (length(site_url) BETWEEN 1 AND 2048),
     email text NOT NULL CHECK (length(email) BETWEEN 1 AND 320),
     api_token_sealed text NOT NULL,
     project_key text NOT NULL CHECK (length(project_key) BETWEEN 1 AND 255),
     issue_type text NOT NULL CHECK (length(issue_type) BETWEEN 1 AND 255),
     labels text[] NOT NULL DEFAULT '{}' CHECK (cardinality(labels) <= 20),
     updated_by integer REFERENCES users (id) ON DELETE SET NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now()
   )`,

  `CREATE TABLE jira_issues (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     workspace_id integer NOT NULL,
     account_id integer NOT NULL,
     check_id text NOT NULL,
     resource_uid text NOT NULL DEFAULT '',
     scan_id integer NOT NULL,
     finding_id integer NOT NULL,
     issue_id text NOT NULL,
     issue_key text NOT NULL,
     issue_url text NOT NULL,
     status_name text NOT NULL DEFAULT '',
     status_category text NOT NULL DEFAULT 'new',
     refreshed_at timestamptz,
     created_by integer REFERENCES users (id) ON DELETE SET NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     UNIQUE (workspace_id, account_id, check_id, resource_uid),
     FOREIGN KEY (account_id, workspace_id) REFERENCES accounts (id, workspace_id) ON DELETE CASCADE
   )`,
  `CREATE INDEX jira_issues_account_check_idx ON jira_issues (account_id, check_id)`,

  ...TABLES.flatMap((table) => [
    `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`,
    `ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`,
    `CREATE POLICY ${table}_scope ON ${table} FOR ALL USING (workspace_id = app_current_workspace_id())
       WITH CHECK (workspace_id = app_current_workspace_id())`,
    ...([["insert", "NEW TABLE AS new_rows"], ["update", "NEW TABLE AS new_rows"], ["delete", "OLD TABLE AS old_rows"]] as const).map(
      ([event, referencing]) => `CREATE TRIGGER ${table}_note_${event} AFTER ${event.toUpperCase()} ON ${table}
         REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION note_workspace_change()`,
    ),
    `CREATE TRIGGER ${table}_note_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION note_workspace_change()`,
  ]),
  ...PER_ACCOUNT.map((table) =>
    `CREATE POLICY ${table}_groups ON ${table} AS RESTRICTIVE FOR ALL USING (${allows("account_id")}) WITH CHECK (${allows("account_id")})`),
  `GRANT SELECT, INSERT, UPDATE, DELETE ON ${TABLES.join(", ")} TO cloud_audit_app`,
  `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO cloud_audit_app`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
