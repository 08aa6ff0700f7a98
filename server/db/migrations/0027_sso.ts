/**
 * Single sign-on (issue 33 part 3; docs/sso.md): one identity provider per workspace, OpenID Connect (authorization code
 * with PKCE) or SAML 2.0, configured by the workspace's admins.
 *
 * - `sso_connections`: the workspace's identity provider (one per workspace). OIDC: issuer (discovery at
 *   `<issuer>/.well-known/openid-configuration`), client id, client secret sealed with AES-256-GCM under a key derived
 *   from APP_SECRET_KEY (purpose "sso-client-secret", the workspace id as associated data), never stored in clear.
 *   SAML: the IdP's entity id, single sign-on URL and signing certificate (PEM). `groups_attribute` names the ID-token
 *   claim / SAML attribute carrying the user's groups; `default_role_id` / `default_custom_role_id` is the role of a
 *   member in no mapped group; `require_sso` refuses password sign-in to people of the owned domains (the workspace
 *   owner keeps a password: break-glass).
 * - `sso_domains`: the email domains a connection owns, unique across workspaces (one domain routes to one provider).
 *   Readable by every scope (the public start call routes an email to its provider; a domain's provider is no secret:
 *   it is where its people are sent to sign in), writable only in the workspace's scope.
 * - `sso_group_roles`: group → role mappings in the admins' order; the first one naming a group the user is in gives
 *   the role (built-in `role_id` or the workspace's `custom_role_id`), re-applied on every sign-in.
 * - `sso_identities`: (connection, subject) → user, linked on the first sign-in (just-in-time membership).
 * - `sso_login_states`: one row per started sign-in: SHA-256 of the `state` (OIDC) / of the RelayState (SAML), the
 *   nonce (OIDC) or the AuthnRequest id (SAML, in `nonce`), the PKCE verifier; single use (`consumed_at`), ten minutes. Not workspace data a member reads: no RLS, like
 *   refresh tokens; only the API's sign-in code touches it.
 * - `sso_handoffs`: the one-time code the callback hands the browser (hashed, single use, a minute) which the SPA
 *   exchanges for the normal session, so tokens never travel in a URL.
 *
 * Row-level security as in migration 0002 on the workspace tables (connections, group roles, identities).
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { CUSTOM_ROLE_ID_FLOOR } from "../../../src/contracts/permissions.ts"

const statements = [
  `CREATE TABLE sso_connections (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     workspace_id integer NOT NULL UNIQUE REFERENCES workspaces (id) ON DELETE CASCADE,
     protocol text NOT NULL CHECK (protocol IN ('oidc', 'saml')),
     enabled boolean NOT NULL DEFAULT true,
     require_sso boolean NOT NULL DEFAULT false,
     oidc_issuer text CHECK (length(oidc_issuer) <= 2048),
     oidc_client_id text CHECK (length(oidc_client_id) <= 512),
     oidc_client_secret_sealed text,
     saml_idp_entity_id text CHECK (length(saml_idp_entity_id) <= 2048),
     saml_sso_url text CHECK (length(saml_sso_url) <= 2048),
     saml_idp_certificate text CHECK (length(saml_idp_certificate) <= 20000),
     groups_attribute text NOT NULL DEFAULT 'groups' CHECK (length(groups_attribute) BETWEEN 1 AND 256),
     default_role_id integer REFERENCES roles (id),
     default_custom_role_id integer,
     created_by integer REFERENCES users (id) ON DELETE SET NULL,
     updated_by integer REFERENCES users (id) ON DELETE SET NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now(),
     UNIQUE (id, workspace_id),
     CHECK ((default_role_id IS NULL) <> (default_custom_role_id IS NULL)),
     CHECK (protocol <> 'oidc' OR (oidc_issuer IS NOT NULL AND oidc_client_id IS NOT NULL AND oidc_client_secret_sealed IS NOT NULL)),
     CHECK (protocol <> 'saml' OR (saml_idp_entity_id IS NOT NULL AND saml_sso_url IS NOT NULL AND saml_idp_certificate IS NOT NULL)),
     FOREIGN KEY (default_custom_role_id, workspace_id) REFERENCES custom_roles (id, workspace_id)
   )`,

  `CREATE TABLE sso_domains (
     domain text PRIMARY KEY CHECK (domain = lower(domain) AND length(domain) BETWEEN 3 AND 253),
     connection_id integer NOT NULL,
     workspace_id integer NOT NULL,
     FOREIGN KEY (connection_id, workspace_id) REFERENCES sso_connections (id, workspace_id) ON DELETE CASCADE
   )`,
  `CREATE INDEX sso_domains_connection_idx ON sso_domains (connection_id)`,

  `CREATE TABLE sso_group_roles (
     connection_id integer NOT NULL,
     workspace_id integer NOT NULL,
     position smallint NOT NULL CHECK (position >= 0),
     group_name text NOT NULL CHECK (length(group_name) BETWEEN 1 AND 256),
     role_id integer REFERENCES roles (id) CHECK (role_id <= ${CUSTOM_ROLE_ID_FLOOR}),
     custom_role_id integer,
     PRIMARY KEY (connection_id, group_name),
     UNIQUE (connection_id, position),
     CHECK ((role_id IS NULL) <> (custom_role_id IS NULL)),
     FOREIGN KEY (connection_id, workspace_id) REFERENCES sso_connections (id, workspace_id) ON DELETE CASCADE,
     FOREIGN KEY (custom_role_id, workspace_id) REFERENCES custom_roles (id, workspace_id) ON DELETE CASCADE
   )`,

  `CREATE TABLE sso_identities (
     connection_id integer NOT NULL,
     workspace_id integer NOT NULL,
     subject text NOT NULL CHECK (length(subject) BETWEEN 1 AND 1024),
     user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
     created_at timestamptz NOT NULL DEFAULT now(),
     last_sign_in_at timestamptz NOT NULL DEFAULT now(),
     PRIMARY KEY (connection_id, subject),
     FOREIGN KEY (connection_id, workspace_id) REFERENCES sso_connections (id, workspace_id) ON DELETE CASCADE
   )`,
  `CREATE INDEX sso_identities_user_idx ON sso_identities (user_id)`,

  `CREATE TABLE sso_login_states (
     state_hash text PRIMARY KEY,
     connection_id integer NOT NULL REFERENCES sso_connections (id) ON DELETE CASCADE,
     workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
     nonce text,
     code_verifier text,
     return_to text CHECK (length(return_to) <= 2048),
     created_at timestamptz NOT NULL DEFAULT now(),
     expires_at timestamptz NOT NULL,
     consumed_at timestamptz
   )`,
  `CREATE INDEX sso_login_states_expiry_idx ON sso_login_states (expires_at)`,

  `CREATE TABLE sso_handoffs (
     code_hash text PRIMARY KEY,
     user_id integer NOT NULL REFERENCES users (id) ON DELETE CASCADE,
     workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
     return_to text,
     created_at timestamptz NOT NULL DEFAULT now(),
     expires_at timestamptz NOT NULL,
     consumed_at timestamptz
   )`,
  `CREATE INDEX sso_handoffs_expiry_idx ON sso_handoffs (expires_at)`,

  ...["sso_connections", "sso_group_roles", "sso_identities"].flatMap((table) => [
    `ALTER TABLE ${table} ENABLE ROW LEVEL SECURITY`,
    `ALTER TABLE ${table} FORCE ROW LEVEL SECURITY`,
    `CREATE POLICY ${table}_scope ON ${table} FOR ALL USING (workspace_id = app_current_workspace_id())
       WITH CHECK (workspace_id = app_current_workspace_id())`,
  ]),
  `ALTER TABLE sso_domains ENABLE ROW LEVEL SECURITY`,
  `ALTER TABLE sso_domains FORCE ROW LEVEL SECURITY`,
  `CREATE POLICY sso_domains_read ON sso_domains FOR SELECT USING (true)`,
  `CREATE POLICY sso_domains_insert ON sso_domains FOR INSERT WITH CHECK (workspace_id = app_current_workspace_id())`,
  `CREATE POLICY sso_domains_update ON sso_domains FOR UPDATE USING (workspace_id = app_current_workspace_id())
     WITH CHECK (workspace_id = app_current_workspace_id())`,
  `CREATE POLICY sso_domains_delete ON sso_domains FOR DELETE USING (workspace_id = app_current_workspace_id())`,
  // Read-cache triggers (migration 0014): a change of the configuration, the owned domains, the group mappings or the
  // linked identities ends every cached answer of the workspace. Login states and hand-off codes are single-use
  // sign-in records no workspace read shows (UNTRACKED_SSO_TABLES).
  ...["sso_connections", "sso_domains", "sso_group_roles", "sso_identities"].flatMap((table) => [
    ...([["insert", "NEW TABLE AS new_rows"], ["update", "NEW TABLE AS new_rows"], ["delete", "OLD TABLE AS old_rows"]] as const).map(
      ([event, referencing]) => `CREATE TRIGGER ${table}_note_${event} AFTER ${event.toUpperCase()} ON ${table}
         REFERENCING ${referencing} FOR EACH STATEMENT EXECUTE FUNCTION note_workspace_change()`,
    ),
    `CREATE TRIGGER ${table}_note_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION note_workspace_change()`,
  ]),
]

/** Workspace tables of this migration without read-cache triggers (see above); the read-cache test reads it. */
export const UNTRACKED_SSO_TABLES = ["sso_login_states", "sso_handoffs"] as const

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
