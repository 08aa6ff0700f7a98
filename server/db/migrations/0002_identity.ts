/**
 * Identity schema: users, workspaces, memberships, roles and permissions, one-time tokens, refresh-token families,
 * invitations, the append-only audit log, rate-limit buckets and the development mail outbox.
 * Spec: the access, workspaces and team specification, §3–§6. Design notes (roles, row-level security): docs/identity.md.
 *
 * Row-level security. Every workspace-owned table (workspaces, memberships, custom_roles, custom_role_permissions,
 * invitations, audit_log) has RLS enabled *and forced*, with policies that compare against three per-transaction
 * settings read through `app_current_workspace_id()`, `app_current_user_id()` and `app_current_invitation_hash()`.
 * An unset or empty setting is NULL, and NULL matches nothing: without a scope, the API sees no workspace rows.
 * The API runs its transactions as the non-owner role `cloud_audit_app` (see server/auth/rls.ts): on a real server
 * the login role is granted it, on embedded PGlite the superuser switches to it with `SET LOCAL ROLE`, because a
 * superuser bypasses RLS even when it is forced.
 *
 * Frozen once released: later changes go into new migrations.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { BUILT_IN_ROLES, CUSTOM_ROLE_ID_FLOOR, PERMISSION_IDS, PERMISSIONS } from "../../../src/contracts/permissions.ts"

/**
 * Permissions and built-in roles come from the contract (src/contracts/permissions.ts) so the SPA and the database agree;
 * tests/identity/schema.test.ts fails if the contract later diverges from what this migration inserted (then a new
 * migration must bring the rows in line).
 */
const PERMISSION_ROWS = PERMISSIONS.map((name) => [PERMISSION_IDS[name], name] as const)
const ROLE_ROWS = BUILT_IN_ROLES.map((r) => [r.id, r.name, r.description, r.permissions.map((p) => PERMISSION_IDS[p])] as const)

const statements = [
  // The non-owner role the API switches to. Cluster-wide, so creation tolerates a concurrent creator.
  `DO $$
   BEGIN
     IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'cloud_audit_app') THEN
       BEGIN
         CREATE ROLE cloud_audit_app NOLOGIN NOSUPERUSER NOBYPASSRLS;
       EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
       END;
     END IF;
   END $$`,

  `CREATE FUNCTION app_current_workspace_id() RETURNS integer LANGUAGE sql STABLE AS
     $$ SELECT nullif(current_setting('app.workspace_id', true), '')::integer $$`,
  `CREATE FUNCTION app_current_user_id() RETURNS integer LANGUAGE sql STABLE AS
     $$ SELECT nullif(current_setting('app.user_id', true), '')::integer $$`,
  `CREATE FUNCTION app_current_invitation_hash() RETURNS text LANGUAGE sql STABLE AS
     $$ SELECT nullif(current_setting('app.invitation_token_hash', true), '') $$`,

  `CREATE TABLE users (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     email text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 320),
     email_verified boolean NOT NULL DEFAULT false,
     email_verified_at timestamptz,
     pending_email text CHECK (pending_email = lower(pending_email)),
     password_hash text NOT NULL,
     first_name text NOT NULL DEFAULT '',
     last_name text NOT NULL DEFAULT '',
     timezone text NOT NULL DEFAULT 'UTC',
     last_login_at timestamptz,
     password_changed_at timestamptz,
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE UNIQUE INDEX users_email_key ON users (email)`,
  `CREATE INDEX users_pending_email_idx ON users (pending_email) WHERE pending_email IS NOT NULL`,

  `CREATE TABLE workspaces (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     name text NOT NULL CHECK (length(btrim(name)) >= 1),
     owner_id integer NOT NULL REFERENCES users (id),
     created_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE UNIQUE INDEX workspaces_name_key ON workspaces (lower(name))`,

  `CREATE TABLE permissions (
     id smallint PRIMARY KEY,
     name text NOT NULL UNIQUE
   )`,
  `CREATE TABLE roles (
     id integer PRIMARY KEY CHECK (id <= ${CUSTOM_ROLE_ID_FLOOR}),
     name text NOT NULL UNIQUE,
     description text NOT NULL DEFAULT ''
   )`,
  `CREATE TABLE role_permissions (
     role_id integer NOT NULL REFERENCES roles (id),
     permission_id smallint NOT NULL REFERENCES permissions (id),
     PRIMARY KEY (role_id, permission_id)
   )`,

  // Built-in and custom roles share one id space (contract: custom ids start above CUSTOM_ROLE_ID_FLOOR).
  `CREATE TABLE custom_roles (
     id integer GENERATED ALWAYS AS IDENTITY (START WITH ${CUSTOM_ROLE_ID_FLOOR + 1}) PRIMARY KEY
       CHECK (id > ${CUSTOM_ROLE_ID_FLOOR}),
     workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
     name text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 50),
     description text NOT NULL DEFAULT '',
     created_by integer REFERENCES users (id) ON DELETE SET NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now(),
     UNIQUE (id, workspace_id)
   )`,
  `CREATE UNIQUE INDEX custom_roles_name_key ON custom_roles (workspace_id, lower(name))`,
  `CREATE TABLE custom_role_permissions (
     custom_role_id integer NOT NULL,
     workspace_id integer NOT NULL,
     permission_id smallint NOT NULL REFERENCES permissions (id),
     PRIMARY KEY (custom_role_id, permission_id),
     FOREIGN KEY (custom_role_id, workspace_id) REFERENCES custom_roles (id, workspace_id) ON DELETE CASCADE
   )`,

  // One row per (workspace, user). The owner has a row too (role Admin); ownership itself is workspaces.owner_id.
  // A custom role must belong to the same workspace: the composite foreign key makes a cross-workspace role impossible.
  `CREATE TABLE memberships (
     workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
     user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
     role_id integer REFERENCES roles (id),
     custom_role_id integer,
     invited_by integer REFERENCES users (id) ON DELETE SET NULL,
     joined_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (workspace_id, user_id),
     CHECK (role_id IS NULL OR custom_role_id IS NULL),
     FOREIGN KEY (custom_role_id, workspace_id) REFERENCES custom_roles (id, workspace_id)
   )`,
  `CREATE INDEX memberships_user_idx ON memberships (user_id)`,

  `CREATE TABLE email_verification_tokens (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
     email text NOT NULL,
     token_hash text NOT NULL UNIQUE,
     expires_at timestamptz NOT NULL,
     consumed_at timestamptz,
     created_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE INDEX email_verification_tokens_email_idx ON email_verification_tokens (email, created_at DESC)`,

  `CREATE TABLE password_reset_tokens (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
     token_hash text NOT NULL UNIQUE,
     expires_at timestamptz NOT NULL,
     consumed_at timestamptz,
     created_at timestamptz NOT NULL DEFAULT now()
   )`,

  // A family is one sign-in session; every refresh rotates the token inside it. Presenting a rotated token again
  // revokes the family (reuse detection). Access tokens carry the family id and die with it.
  `CREATE TABLE refresh_token_families (
     id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
     user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
     workspace_id integer REFERENCES workspaces (id) ON DELETE SET NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     revoked_at timestamptz,
     revoked_reason text
   )`,
  `CREATE INDEX refresh_token_families_user_idx ON refresh_token_families (user_id) WHERE revoked_at IS NULL`,
  `CREATE TABLE refresh_tokens (
     id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     family_id uuid NOT NULL REFERENCES refresh_token_families (id) ON DELETE CASCADE,
     token_hash text NOT NULL UNIQUE,
     created_at timestamptz NOT NULL DEFAULT now(),
     expires_at timestamptz NOT NULL,
     rotated_at timestamptz
   )`,

  `CREATE TABLE invitations (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
     email text NOT NULL CHECK (email = lower(email)),
     role_id integer REFERENCES roles (id),
     custom_role_id integer,
     token_hash text NOT NULL UNIQUE,
     token_ciphertext text NOT NULL,
     status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'canceled')),
     invited_by integer REFERENCES users (id) ON DELETE SET NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now(),
     expires_at timestamptz NOT NULL,
     accepted_at timestamptz,
     accepted_user_id integer REFERENCES users (id) ON DELETE SET NULL,
     canceled_at timestamptz,
     CHECK (role_id IS NULL OR custom_role_id IS NULL),
     FOREIGN KEY (custom_role_id, workspace_id) REFERENCES custom_roles (id, workspace_id) ON DELETE SET NULL (custom_role_id)
   )`,
  `CREATE UNIQUE INDEX invitations_pending_key ON invitations (workspace_id, email) WHERE status = 'pending'`,
  `CREATE INDEX invitations_workspace_idx ON invitations (workspace_id, created_at DESC)`,

  // Append-only: the trigger refuses UPDATE, DELETE and TRUNCATE for everyone (the owner included);
  // the API role is also granted only INSERT and SELECT.
  `CREATE TABLE audit_log (
     id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     workspace_id integer,
     actor_user_id integer,
     action text NOT NULL,
     target_type text,
     target_id text,
     details jsonb NOT NULL DEFAULT '{}'::jsonb,
     ip text,
     created_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE INDEX audit_log_workspace_idx ON audit_log (workspace_id, created_at DESC)`,
  `CREATE INDEX audit_log_actor_idx ON audit_log (actor_user_id, created_at DESC)`,
  `CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     RAISE EXCEPTION 'audit_log is append-only' USING ERRCODE = 'insufficient_privilege';
   END $$`,
  `CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
     FOR EACH ROW EXECUTE FUNCTION audit_log_append_only()`,
  `CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
     FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()`,

  // Fixed-window counters shared by every API process (login per account and per address, resend cool-down, ...).
  `CREATE TABLE rate_limit_buckets (
     key text PRIMARY KEY,
     window_started_at timestamptz NOT NULL,
     hits integer NOT NULL
   )`,

  // Development outbox: every mail when SMTP_URL is unset. Readable only when NODE_ENV is not production.
  `CREATE TABLE dev_outbox (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     kind text NOT NULL,
     to_address text NOT NULL,
     subject text NOT NULL,
     text_body text NOT NULL,
     html_body text NOT NULL,
     links jsonb NOT NULL DEFAULT '[]'::jsonb,
     created_at timestamptz NOT NULL DEFAULT now()
   )`,

  // ---- Row-level security -------------------------------------------------------------------------------------
  `ALTER TABLE workspaces ENABLE ROW LEVEL SECURITY`,
  `ALTER TABLE workspaces FORCE ROW LEVEL SECURITY`,
  // A workspace is visible in its own scope, to its owner, to its members, and to whoever holds one of its invitations.
  `CREATE POLICY workspaces_select ON workspaces FOR SELECT USING (
     id = app_current_workspace_id()
     OR owner_id = app_current_user_id()
     OR id IN (SELECT m.workspace_id FROM memberships m WHERE m.user_id = app_current_user_id())
     OR id IN (SELECT i.workspace_id FROM invitations i WHERE i.token_hash = app_current_invitation_hash()))`,
  `CREATE POLICY workspaces_insert ON workspaces FOR INSERT WITH CHECK (owner_id = app_current_user_id())`,
  `CREATE POLICY workspaces_update ON workspaces FOR UPDATE USING (id = app_current_workspace_id())
     WITH CHECK (id = app_current_workspace_id())`,
  `CREATE POLICY workspaces_delete ON workspaces FOR DELETE USING (id = app_current_workspace_id())`,

  `ALTER TABLE memberships ENABLE ROW LEVEL SECURITY`,
  `ALTER TABLE memberships FORCE ROW LEVEL SECURITY`,
  // A user sees their own memberships everywhere (workspace list); everything else only inside the workspace scope.
  `CREATE POLICY memberships_select ON memberships FOR SELECT USING (
     workspace_id = app_current_workspace_id() OR user_id = app_current_user_id())`,
  `CREATE POLICY memberships_insert ON memberships FOR INSERT WITH CHECK (workspace_id = app_current_workspace_id())`,
  `CREATE POLICY memberships_update ON memberships FOR UPDATE USING (workspace_id = app_current_workspace_id())
     WITH CHECK (workspace_id = app_current_workspace_id())`,
  `CREATE POLICY memberships_delete ON memberships FOR DELETE USING (workspace_id = app_current_workspace_id())`,

  ...["custom_roles", "custom_role_permissions"].flatMap((table) => [
    `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`,
    `ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`,
    `CREATE POLICY ${table}_scope ON ${table} FOR ALL USING (workspace_id = app_current_workspace_id())
       WITH CHECK (workspace_id = app_current_workspace_id())`,
  ]),
  // The member's own custom role stays readable across workspaces for the workspace list (role name).
  `CREATE POLICY custom_roles_own ON custom_roles FOR SELECT USING (
     id IN (SELECT m.custom_role_id FROM memberships m WHERE m.user_id = app_current_user_id()))`,
  // ... and the role named by an invitation is readable by whoever holds the invitation's token.
  `CREATE POLICY custom_roles_invited ON custom_roles FOR SELECT USING (
     id IN (SELECT i.custom_role_id FROM invitations i WHERE i.token_hash = app_current_invitation_hash()))`,

  `ALTER TABLE invitations ENABLE ROW LEVEL SECURITY`,
  `ALTER TABLE invitations FORCE ROW LEVEL SECURITY`,
  // Inside its workspace, or for the holder of its token (check and accept happen before any workspace is chosen).
  `CREATE POLICY invitations_scope ON invitations FOR ALL USING (
     workspace_id = app_current_workspace_id() OR token_hash = app_current_invitation_hash())
     WITH CHECK (workspace_id = app_current_workspace_id() OR token_hash = app_current_invitation_hash())`,

  `ALTER TABLE audit_log ENABLE ROW LEVEL SECURITY`,
  `ALTER TABLE audit_log FORCE ROW LEVEL SECURITY`,
  `CREATE POLICY audit_log_select ON audit_log FOR SELECT USING (workspace_id = app_current_workspace_id())`,
  `CREATE POLICY audit_log_insert ON audit_log FOR INSERT WITH CHECK (
     workspace_id IS NULL OR workspace_id = app_current_workspace_id())`,

  // ---- Privileges of the API role ------------------------------------------------------------------------------
  `GRANT USAGE ON SCHEMA public TO cloud_audit_app`,
  `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO cloud_audit_app`,
  `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO cloud_audit_app`,
  `REVOKE INSERT, UPDATE, DELETE ON permissions, roles, role_permissions FROM cloud_audit_app`,
  `REVOKE UPDATE, DELETE, TRUNCATE ON audit_log FROM cloud_audit_app`,
  // Tables created later by the migrating role (other areas' migrations) are usable by the API role too.
  `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO cloud_audit_app`,
  `ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO cloud_audit_app`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
  for (const [id, name] of PERMISSION_ROWS) yield* sql`INSERT INTO permissions (id, name) VALUES (${id}, ${name})`
  for (const [id, name, description, permissionIds] of ROLE_ROWS) {
    yield* sql`INSERT INTO roles (id, name, description) VALUES (${id}, ${name}, ${description})`
    for (const permissionId of permissionIds) {
      yield* sql`INSERT INTO role_permissions (role_id, permission_id) VALUES (${id}, ${permissionId})`
    }
  }
})
