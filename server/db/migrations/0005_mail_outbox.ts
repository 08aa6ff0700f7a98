/**
 * Mail delivery at least once (docs/identity.md "Email"): every mail a request sends is a row here, written in the
 * request's transaction together with a `mail.send` job that carries only the row's id. The rendered mail (subject,
 * text, HTML, links: the links hold verification, reset and invitation tokens) is kept sealed with AES-256-GCM under a
 * sub-key of APP_SECRET_KEY and wiped once the mail is sent or given up on; `sent_at` makes a re-delivered job a no-op.
 * `claimed_until` keeps two attempts of one job (an expired attempt still running) from sending at the same time.
 * Not workspace-owned: no row-level security (the API writes it as the login role, as it does pg-boss's job rows).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements = [
  `CREATE TABLE mail_outbox (
     id uuid PRIMARY KEY,
     kind text NOT NULL,
     to_address text NOT NULL,
     sealed_message text,
     attempts integer NOT NULL DEFAULT 0,
     last_error text,
     claimed_until timestamptz,
     created_at timestamptz NOT NULL DEFAULT now(),
     sent_at timestamptz,
     failed_at timestamptz,
     CHECK (sent_at IS NULL OR sealed_message IS NULL),
     CHECK (failed_at IS NULL OR sealed_message IS NULL)
   )`,
  `CREATE INDEX mail_outbox_unsent ON mail_outbox (created_at) WHERE sent_at IS NULL AND failed_at IS NULL`,
]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
