/**
 * Webhooks and Slack (issue 33, part 2; docs/integrations.md).
 *
 * - `integration_events`: the outbox of integration events. One row per event, written by
 *   server/integrations/events.ts `publishIntegrationEvent` in the transaction of the change that caused it;
 *   `dedupe_key` makes a publish idempotent (a re-delivered job or a second roll-up publishes nothing new).
 *   `data` is the event's `data` (src/contracts/integrations-events.ts).
 * - `webhooks`: a workspace's destinations, `kind` 'webhook' (signed JSON) or 'slack' (an incoming webhook, Block Kit).
 *   The URL (a Slack incoming-webhook URL is itself a credential) and the signing secret are sealed with AES-256-GCM
 *   under a sub-key of APP_SECRET_KEY, bound to the workspace and the webhook (server/integrations/webhook-secrets.ts);
 *   `url_hint` is what the settings page shows. `events` filters the event types, `min_severity` the new failing
 *   resources. `consecutive_failures` counts failed attempts in a row; at the limit the webhook is disabled with
 *   `disabled_reason`.
 * - `webhook_deliveries`: one row per (event, webhook) and per replay, with the exact body sent, its attempts, the
 *   last status code and error, and the next attempt's time. A `webhooks.deliver` job carries its id.
 *
 * Row-level security and read-cache triggers as every workspace table (migrations 0002, 0014). Workspace-level
 * configuration (admins only), so no account-group limit.
 *
 * Frozen once released.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const TABLES = ["integration_events", "webhooks", "webhook_deliveries"] as const

const statements = [
  `CREATE TABLE integration_events (
     id uuid PRIMARY KEY,
     workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
     type text NOT NULL,
     dedupe_key text NOT NULL,
     data jsonb NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     UNIQUE (workspace_id, dedupe_key)
   )`,
  `CREATE TABLE webhooks (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
     kind text NOT NULL CHECK (kind IN ('webhook', 'slack')),
     name text NOT NULL CHECK (length(btrim(name)) BETWEEN 1 AND 100),
     sealed_url text NOT NULL,
     url_hint text NOT NULL,
     sealed_secret text,
     events text[] NOT NULL,
     min_severity text NOT NULL DEFAULT 'low' CHECK (min_severity IN ('critical', 'high', 'medium', 'low')),
     enabled boolean NOT NULL DEFAULT true,
     disabled_reason text,
     disabled_at timestamptz,
     consecutive_failures integer NOT NULL DEFAULT 0,
     last_delivery_at timestamptz,
     created_by integer REFERENCES users (id) ON DELETE SET NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now(),
     CHECK (kind = 'slack' OR sealed_secret IS NOT NULL)
   )`,
  `CREATE INDEX webhooks_workspace ON webhooks (workspace_id, id)`,
  `CREATE TABLE webhook_deliveries (
     id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     workspace_id integer NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
     webhook_id integer NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
     event_id uuid NOT NULL REFERENCES integration_events (id) ON DELETE CASCADE,
     event_type text NOT NULL,
     body text NOT NULL,
     status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
     attempts integer NOT NULL DEFAULT 0,
     last_status_code integer,
     last_error text,
     next_attempt_at timestamptz,
     claimed_until timestamptz,
     delivered_at timestamptz,
     replay_of integer,
     created_at timestamptz NOT NULL DEFAULT now()
   )`,
  `CREATE INDEX webhook_deliveries_log ON webhook_deliveries (workspace_id, webhook_id, id DESC)`,
  `CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id)`,

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
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
