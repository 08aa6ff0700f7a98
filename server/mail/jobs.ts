/**
 * The mail job (registered in server/jobs/registry.ts): `mail.send`, one per mail, payload `{ mail_id }` only; see
 * ./mail-outbox.ts for delivery, retries and why the payload carries no token.
 */
import { defineJob } from "../jobs/queue.ts"
import { deliverQueuedMail, MAIL_QUEUE, MAIL_WORK, SEND_MAIL_JOB, SendMailPayload } from "./mail-outbox.ts"

export const sendMailJob = defineJob(SEND_MAIL_JOB, SendMailPayload, deliverQueuedMail, { queue: MAIL_QUEUE, work: MAIL_WORK })

export const mailJobs = [sendMailJob] as const
