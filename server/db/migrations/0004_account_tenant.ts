/**
 * The Azure tenant (directory) id of a connected account, shown in the account detail next to the subscription and
 * client id. It is not a secret, so it lives in clear next to `cloud_account_id` (the subscription id) and
 * `access_key_id` (the client id); NULL for AWS and GCP accounts, and for Azure accounts added before this migration.
 * Column-level grants are inherited from the table grant of migration 0003.
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"

const statements = [`ALTER TABLE accounts ADD COLUMN tenant_id text CHECK (tenant_id IS NULL OR length(tenant_id) BETWEEN 1 AND 256)`]

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
