/**
 * Access by group (issue 31 item 5; docs/permissions.md "Account groups"): a custom role can be limited to account
 * groups, so a member holding it sees and acts on those accounts only. Built-in roles and the owner stay unlimited.
 *
 * - `account_groups`: a named set of the workspace's accounts, of one kind:
 *   - 'unit': an organisation's unit and every unit below it (`organization_id`, `unit_id`): the accounts whose
 *     `org_unit_id` (migration 0022) is that unit or a unit under it, as the organisation's last sync placed them, so
 *     the group follows accounts moved between units;
 *   - 'tag': the accounts whose `tags` hold `tag_key` (with the value `tag_value`, or any value when it is NULL);
 *   - 'manual': the accounts listed in `account_group_accounts`.
 * - `custom_role_account_groups`: the groups a custom role is limited to; `custom_roles.limited_to_groups` says the
 *   role is limited at all. The flag, not the presence of links, decides: a limited role whose groups were all deleted
 *   (an organisation's deletion takes its unit groups along) sees no account, never every account.
 *
 * Enforcement. The statement that opens a member's scope (server/auth/rls.ts `inScopeForMember`) computes the accounts
 * the member's role allows (`app_role_account_ids`) and sets them as the transaction-local `app.account_ids`: '' (or
 * unset) = unlimited, '{1,2}' = those accounts, '{}' = none. `app_account_limit()` reads it as integer[] (NULL =
 * unlimited). Every table holding per-account data gets a RESTRICTIVE policy (ANDed with the workspace policy and the
 * system scopes' policies) keeping a limited member to rows of allowed accounts, for reading and writing alike; a table
 * without an account column reaches it through its parent (`scan_id` → scans, `stream_id` → result_streams,
 * `finding_id` → findings → scans, `report_id` → compliance_reports → scans). Each policy starts with
 * `(SELECT app_account_limit()) IS NULL`: an uncorrelated sub-select, computed once per statement (an InitPlan), so an
 * unlimited member pays one parameter test per row and never the lookup behind the OR. A limited member cannot insert
 * an account (a new id is never in the allowed set). Mute rules without an account (workspace-wide) stay readable to a
 * limited member but only an unlimited one may write them. Workspace-level tables (team, roles, invitations, audit
 * log, retention) are unchanged. `findings_resource_uids` (SECURITY DEFINER, migration 0019) also checks the account.
 *
 * Row-level security on the new tables as in migration 0002, and the read-cache triggers of migration 0014: a change of
 * a group or of a role's groups is a write in the workspace, so cached answers read under the old limit are stale.
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const TABLES = ["account_groups", "account_group_accounts", "custom_role_account_groups"] as const

/** Rows of accounts the scope allows: `col` holds an account id. */
const allows = (col: string) => `(SELECT app_account_limit()) IS NULL OR ${col} = ANY ((SELECT app_account_limit())::integer[])`
/** Rows whose account is reached through a parent (`sub` is a correlated sub-select naming the allowed limit). */
const allowsVia = (sub: string) => `(SELECT app_account_limit()) IS NULL OR EXISTS (${sub})`
const LIMIT = `ANY ((SELECT app_account_limit())::integer[])`

/** Per-account tables and the condition that keeps a limited member to allowed accounts. */
export const GROUP_LIMITED_TABLES: ReadonlyArray<readonly [string, string]> = [
  ["accounts", allows("id")],
  ["scans", allows("account_id")],
  ["result_streams", allows("account_id")],
  ["resources", allows("account_id")],
  ["scan_schedules", allows("account_id")],
  ["organizations", allows("account_id")],
  ["organization_units", allows("organization_id")],
  ["organization_syncs", allows("organization_id")],
  ["fleet_scans", allows("organization_id")],
  ["fleet_scan_members", allows("account_id")],
  ["organization_members", `${allows("organization_id")} OR account_id = ${LIMIT}`],
  ...["scan_services", "findings", "scan_mutes", "compliance_reports"].map((t) =>
    [t, allowsVia(`SELECT 1 FROM scans s WHERE s.id = ${t}.scan_id AND s.account_id = ${LIMIT}`)] as const),
  ["result_rows", allowsVia(`SELECT 1 FROM result_streams st WHERE st.id = result_rows.stream_id AND st.account_id = ${LIMIT}`)],
  ...["result_marks", "remediations"].map((t) =>
    [t, allowsVia(`SELECT 1 FROM findings f JOIN scans s ON s.id = f.scan_id WHERE f.id = ${t}.finding_id AND s.account_id = ${LIMIT}`)] as const),
  ["compliance_report_chunks", allowsVia(
    `SELECT 1 FROM compliance_reports r JOIN scans s ON s.id = r.scan_id WHERE r.id = compliance_report_chunks.report_id AND s.account_id = ${LIMIT}`)],
]

const statements = [
  `CREATE FUNCTION app_account_limit() RETURNS integer[] LANGUAGE sql STABLE AS
     $$ SELECT nullif(current_setting('app.account_ids', true), '')::integer[] $$`,

  `ALTER TABLE custom_roles ADD COLUMN limited_to_groups boolean NOT NULL DEFAULT false`,

  `CREATE TABLE account_groups (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
     name text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 100),
     kind text NOT NULL CHECK (kind IN ('unit', 'tag', 'manual')),
     organization_id integer,
     unit_id text CHECK (length(unit_id) BETWEEN 1 AND 256),
     tag_key text CHECK (length(tag_key) BETWEEN 1 AND 128),
     tag_value text CHECK (length(tag_value) <= 256),
     created_by integer REFERENCES users (id) ON DELETE SET NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now(),
     UNIQUE (id, workspace_id),
     CHECK ((kind = 'unit') = (organization_id IS NOT NULL AND unit_id IS NOT NULL)),
     CHECK (kind = 'unit' OR (organization_id IS NULL AND unit_id IS NULL)),
     CHECK ((kind = 'tag') = (tag_key IS NOT NULL)),
     CHECK (kind = 'tag' OR tag_value IS NULL),
     FOREIGN KEY (organization_id, workspace_id) REFERENCES organizations (account_id, workspace_id) ON DELETE CASCADE
   )`,
  `CREATE UNIQUE INDEX account_groups_name_key ON account_groups (workspace_id, lower(name))`,

  `CREATE TABLE account_group_accounts (
     group_id integer NOT NULL,
     workspace_id integer NOT NULL,
     account_id integer NOT NULL,
     PRIMARY KEY (group_id, account_id),
     FOREIGN KEY (group_id, workspace_id) REFERENCES account_groups (id, workspace_id) ON DELETE CASCADE,
     FOREIGN KEY (account_id, workspace_id) REFERENCES accounts (id, workspace_id) ON DELETE CASCADE
   )`,
  `CREATE INDEX account_group_accounts_account_idx ON account_group_accounts (account_id)`,

  `CREATE TABLE custom_role_account_groups (
     custom_role_id integer NOT NULL,
     workspace_id integer NOT NULL,
     group_id integer NOT NULL,
     PRIMARY KEY (custom_role_id, group_id),
     FOREIGN KEY (custom_role_id, workspace_id) REFERENCES custom_roles (id, workspace_id) ON DELETE CASCADE,
     FOREIGN KEY (group_id, workspace_id) REFERENCES account_groups (id, workspace_id) ON DELETE CASCADE
   )`,
  `CREATE INDEX custom_role_account_groups_group_idx ON custom_role_account_groups (group_id)`,

  // The accounts a limited custom role allows, as the text of an integer[] ('{}' when none). Filters by workspace
  // itself: the scope statement may run as a superuser (embedded PGlite), which row-level security does not bind.
  `CREATE FUNCTION app_role_account_ids(p_workspace integer, p_role integer) RETURNS text LANGUAGE sql STABLE AS $$
     WITH RECURSIVE g AS (
       SELECT ag.id, ag.kind, ag.organization_id, ag.unit_id, ag.tag_key, ag.tag_value
       FROM custom_role_account_groups rg
       JOIN account_groups ag ON ag.id = rg.group_id AND ag.workspace_id = rg.workspace_id
       WHERE rg.workspace_id = p_workspace AND rg.custom_role_id = p_role
     ), units AS (
       SELECT g.organization_id, g.unit_id FROM g WHERE g.kind = 'unit'
       UNION
       SELECT c.organization_id, c.unit_id FROM units p
       JOIN organization_units c ON c.workspace_id = p_workspace AND c.organization_id = p.organization_id AND c.parent_unit_id = p.unit_id
     ), ids AS (
       SELECT ga.account_id AS id FROM g JOIN account_group_accounts ga ON ga.group_id = g.id AND ga.workspace_id = p_workspace
       WHERE g.kind = 'manual'
       UNION
       SELECT a.id FROM g JOIN accounts a ON a.workspace_id = p_workspace AND (a.tags ->> g.tag_key) IS NOT NULL
         AND (g.tag_value IS NULL OR a.tags ->> g.tag_key = g.tag_value)
       WHERE g.kind = 'tag'
       UNION
       SELECT a.id FROM units u JOIN accounts a ON a.workspace_id = p_workspace AND a.organization_id = u.organization_id
         AND a.org_unit_id = u.unit_id
     )
     SELECT '{' || coalesce(string_agg(ids.id::text, ',' ORDER BY ids.id), '') || '}' FROM ids
   $$`,

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
  `GRANT SELECT, INSERT, UPDATE, DELETE ON ${TABLES.join(", ")} TO cloud_audit_app`,
  `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO cloud_audit_app`,

  // ---- The account limit on per-account data ---------------------------------------------------------------------
  ...GROUP_LIMITED_TABLES.map(([table, condition]) =>
    `CREATE POLICY ${table}_groups ON ${table} AS RESTRICTIVE FOR ALL USING (${condition}) WITH CHECK (${condition})`),
  // Workspace-wide mute rules (no account) are readable to a limited member; writing any rule needs its account allowed.
  `CREATE POLICY mute_rules_groups_read ON mute_rules AS RESTRICTIVE FOR SELECT USING (account_id IS NULL OR ${allows("account_id")})`,
  `CREATE POLICY mute_rules_groups_insert ON mute_rules AS RESTRICTIVE FOR INSERT WITH CHECK (${allows("account_id")})`,
  `CREATE POLICY mute_rules_groups_update ON mute_rules AS RESTRICTIVE FOR UPDATE USING (${allows("account_id")})
     WITH CHECK (${allows("account_id")})`,
  `CREATE POLICY mute_rules_groups_delete ON mute_rules AS RESTRICTIVE FOR DELETE USING (${allows("account_id")})`,

  // The resource search's inventory lookup runs as its definer (no row-level security): it checks the account too.
  `CREATE OR REPLACE FUNCTION findings_resource_uids(p_account_id integer, p_pattern text) RETURNS TABLE (resource_uid text)
     LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, public ROWS 100 AS $$
   BEGIN
     IF app_account_limit() IS NOT NULL AND NOT p_account_id = ANY (app_account_limit()) THEN
       RETURN;
     END IF;
     -- EXECUTE plans with the pattern's value; the fence keeps the ILIKE the only condition the index scan may use.
     RETURN QUERY EXECUTE
       'SELECT t.resource_uid FROM (SELECT inv.resource_uid, inv.workspace_id, inv.account_id FROM resources inv
                                    WHERE inv.resource_uid ILIKE $2 OFFSET 0) t
        WHERE t.workspace_id = app_current_workspace_id() AND t.account_id = $1'
       USING p_account_id, p_pattern;
   END $$`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
