/**
 * The webhook jobs (registered in server/jobs/registry.ts): `webhooks.deliver`, one per delivery attempt, payload
 * `{ workspace_id, delivery_id }` only; see ./webhook-delivery.ts for signing, retries and automatic disabling.
 */
import { deliverWebhookJob } from "./webhook-delivery.ts"

export const webhookJobs = [deliverWebhookJob] as const
