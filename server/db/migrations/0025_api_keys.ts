/**
 * API keys (issue 33; docs/api-keys.md, contract src/contracts/api-keys.ts).
 *
 * - `api_keys`: one row per key, of one workspace and its creating member (`user_id`), with the role it acts with
 *   (`role_id` built-in or `custom_role_id`; both NULL once its custom role is deleted: the key then holds nothing),
 *   optional account-group limits (`account_group_ids`, NULL: none of its own), an expiry, the last use (time and
 *   client address) and the revocation. The secret is never stored: `secret_hash` is the hex SHA-256 of the whole
 *   secret (`ca_live_` + 32 random bytes), `last_four` its last four characters for the list.
 * - `app_groups_account_ids(workspace, groups)`: the accounts those groups hold now, as the text of an integer[], by
 *   the same rules as `app_role_account_ids` (migration 0023) for a role's groups. Run in a member's scope (as the API
 *   role), `accounts` is already cut down to the member's own limit, so the answer is the intersection.
 *
 * Row-level security as for every workspace table (enabled and forced), plus one way in before any workspace is in
 * scope: a request presenting a key first sets the transaction-local `app.api_key_hash` to the SHA-256 of what it
 * presented (server/auth/api-keys.ts), and the row with that hash is visible to that transaction, as an invitation's
 * row is to the holder of its token (migration 0002). Knowing the hash means holding the secret.
 *
 * No read-cache triggers (migration 0014): keys are not read through the cache, and a key's last use is written on
 * every request, which would otherwise make every cached answer of the workspace stale.
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/** Workspace tables of this migration without read-cache triggers (see above); the read-cache test reads it. */
export const UNTRACKED_API_KEY_TABLES = ["api_keys"] as const

const statements = [
  `CREATE TABLE api_keys (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
     user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
     name text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 100),
     role_id integer REFERENCES roles (id),
     custom_role_id integer,
     account_group_ids integer[] CHECK (account_group_ids IS NULL OR cardinality(account_group_ids) BETWEEN 1 AND 100),
     secret_hash text NOT NULL UNIQUE CHECK (secret_hash ~ '^[0-9a-f]{64}$'),
     last_four text NOT NULL CHECK (length(last_four) = 4),
     created_at timestamptz NOT NULL DEFAULT now(),
     expires_at timestamptz NOT NULL,
     last_used_at timestamptz,
     last_used_ip text,
     revoked_at timestamptz,
     revoked_by integer REFERENCES users (id) ON DELETE SET NULL,
     CHECK (role_id IS NULL OR custom_role_id IS NULL),
     CHECK (expires_at > created_at),
     FOREIGN KEY (custom_role_id, workspace_id) REFERENCES custom_roles (id, workspace_id) ON DELETE SET NULL (custom_role_id)
   )`,
  `CREATE INDEX api_keys_workspace_idx ON api_keys (workspace_id, user_id, created_at DESC)`,

  `ALTER TABLE api_keys ENABLE ROW LEVEL SECURITY`,
  `ALTER TABLE api_keys FORCE ROW LEVEL SECURITY`,
  `CREATE POLICY api_keys_scope ON api_keys FOR ALL USING (workspace_id = app_current_workspace_id())
     WITH CHECK (workspace_id = app_current_workspace_id())`,
  `CREATE POLICY api_keys_presented ON api_keys FOR ALL USING (secret_hash = nullif(current_setting('app.api_key_hash', true), ''))
     WITH CHECK (secret_hash = nullif(current_setting('app.api_key_hash', true), ''))`,
  `GRANT SELECT, INSERT, UPDATE ON api_keys TO cloud_audit_app`,
  `REVOKE DELETE, TRUNCATE ON api_keys FROM cloud_audit_app`,

  `CREATE FUNCTION app_groups_account_ids(p_workspace integer, p_groups integer[]) RETURNS text LANGUAGE sql STABLE AS $$
     WITH RECURSIVE g AS (
       SELECT ag.id, ag.kind, ag.organization_id, ag.unit_id, ag.tag_key, ag.tag_value
       FROM account_groups ag WHERE ag.workspace_id = p_workspace AND ag.id = ANY (p_groups)
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
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
