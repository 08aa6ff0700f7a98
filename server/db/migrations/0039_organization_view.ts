/**
 * The organisation as a member limited to account groups sees it (issue 31 item 5; docs/permissions.md "Account groups",
 * docs/organizations.md "Access by group"). Migration 0023 hid every organisation-level row from a limited member: the
 * organisation's own account, its units and settings are the organisation's, not a member's, so a team lead limited to
 * one unit's group found their organisation page, fleet dashboard and organisation compliance "not found", and the
 * `unit` filters walked no unit below the one named (the units were hidden). This migration opens exactly two things,
 * for reading only:
 *
 * - the organisation's account row (its name, provider and organisation id: what the page is titled with), to a
 *   limited member one of whose allowed accounts is a member of it (`organization_members.account_id`), and only in
 *   a transaction that asks for it: `app.organization_view` = 'on' (set by the organisation's read endpoints,
 *   server/organizations/store.ts `withOrganizationView`). Every other statement, among them those that read an
 *   account's sealed credentials (reveal secret, test, scan launch), still finds no such row. The row stays unwritable
 *   (the write policies keep 0023's condition), and `SELECT … FOR UPDATE` needs the update policy, so it is never
 *   locked by them either;
 * - the organisation's units on the way to an allowed account: a unit whose path is the path of an allowed member
 *   (`accounts.org_unit_path`, written from the same `unitPaths` as `organization_units.path`) or a prefix of it up to
 *   a " / ", i.e. the member's unit and every unit above it. Names the member already reads in their accounts'
 *   unit paths; a unit holding none of their accounts (a sibling, an empty unit) stays hidden, so unit filters over it
 *   are "unknown unit" and the units walk from a visible unit down reaches every unit that holds an allowed account.
 *
 * Everything else of the organisation stays hidden as 0023 made it: `organizations` (selection, member role name,
 * management account, sync schedule), `organization_syncs` (their change lists name members of other units),
 * `fleet_scans` (their counts span every member), and every account outside the groups.
 *
 * The restrictive `accounts_groups` and `organization_units_groups` policies of 0023 (FOR ALL) become one restrictive
 * policy per command: reading as above, writing as before. An unlimited scope still passes on the first test
 * (`(SELECT app_account_limit()) IS NULL`, one InitPlan per statement).
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const LIMIT = `ANY ((SELECT app_account_limit())::integer[])`
const UNLIMITED = `(SELECT app_account_limit()) IS NULL`

/** 0023's conditions (rows of allowed accounts), kept for writing. */
const ACCOUNT_ALLOWED = `${UNLIMITED} OR id = ${LIMIT}`
const UNIT_ALLOWED = `${UNLIMITED} OR organization_id = ${LIMIT}`

/** Per-command restrictive policies replacing a FOR ALL one: `read` for SELECT, `write` for the others. */
const split = (table: string, read: string, write: string) => [
  `DROP POLICY ${table}_groups ON ${table}`,
  `CREATE POLICY ${table}_groups_read ON ${table} AS RESTRICTIVE FOR SELECT USING (${read})`,
  `CREATE POLICY ${table}_groups_insert ON ${table} AS RESTRICTIVE FOR INSERT WITH CHECK (${write})`,
  `CREATE POLICY ${table}_groups_update ON ${table} AS RESTRICTIVE FOR UPDATE USING (${write}) WITH CHECK (${write})`,
  `CREATE POLICY ${table}_groups_delete ON ${table} AS RESTRICTIVE FOR DELETE USING (${write})`,
]

const statements = [
  `CREATE FUNCTION app_organization_view() RETURNS boolean LANGUAGE sql STABLE AS
     $$ SELECT coalesce(current_setting('app.organization_view', true), '') = 'on' $$`,
  ...split(
    "accounts",
    `${ACCOUNT_ALLOWED} OR (is_organization AND (SELECT app_organization_view()) AND EXISTS (
       SELECT 1 FROM organization_members om
       WHERE om.workspace_id = accounts.workspace_id AND om.organization_id = accounts.id AND om.account_id = ${LIMIT}))`,
    ACCOUNT_ALLOWED,
  ),
  ...split(
    "organization_units",
    `${UNIT_ALLOWED} OR EXISTS (
       SELECT 1 FROM accounts a
       WHERE a.workspace_id = organization_units.workspace_id AND a.organization_id = organization_units.organization_id
         AND a.id = ${LIMIT}
         AND (a.org_unit_path = organization_units.path
              OR left(a.org_unit_path, length(organization_units.path) + 3) = organization_units.path || ' / '))`,
    UNIT_ALLOWED,
  ),
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
