/**
 * The Slack destination (issue 33): an incoming webhook receives one Block Kit message per event
 * (https://api.slack.com/messaging/webhooks — a POST of `{ text, blocks }`). Messages are built with the Block Kit types
 * of `@slack/types`; they are sent by the same guarded client and outbox as every webhook
 * (./safe-fetch.ts, ./webhook-delivery.ts), not by `@slack/webhook`, whose client would bypass the address checks.
 *
 * Scan summaries and new failing resources are the spec's messages; the other event types get a one-line message
 * with a link. Every message links back to the product (the configured APP_ORIGIN, as emails do). Text is escaped for
 * Slack's mrkdwn (`&`, `<`, `>`), so a resource id cannot forge a link.
 */
import type { KnownBlock } from "@slack/types"
import { SEVERITIES } from "../../src/contracts/findings.ts"
import type { IntegrationEvent, SeverityCounts } from "../../src/contracts/integrations-events.ts"

export interface SlackMessage {
  readonly text: string
  readonly blocks: ReadonlyArray<KnownBlock>
}

/** Slack mrkdwn escaping (the three characters Slack asks to escape). */
export const escapeSlack = (text: string): string => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

const link = (url: string, label: string) => `<${url.replace(/[<>|]/g, encodeURIComponent)}|${escapeSlack(label)}>`

const SEVERITY_MARK: Readonly<Record<string, string>> = { critical: ":red_circle:", high: ":large_orange_circle:", medium: ":large_yellow_circle:", low: ":white_circle:" }

const bySeverity = (counts: SeverityCounts): string =>
  SEVERITIES.map((s) => `${SEVERITY_MARK[s]} ${s} ${counts[s]}`).join("   ")

const sum = (counts: SeverityCounts): number => SEVERITIES.reduce((n, s) => n + counts[s], 0)

const header = (text: string): KnownBlock => ({ type: "header", text: { type: "plain_text", text: text.slice(0, 150), emoji: true } })
const section = (text: string): KnownBlock => ({ type: "section", text: { type: "mrkdwn", text: text.slice(0, 3000) } })
const context = (text: string): KnownBlock => ({ type: "context", elements: [{ type: "mrkdwn", text: text.slice(0, 3000) }] })
const button = (url: string, label: string): KnownBlock => ({
  type: "actions",
  elements: [{ type: "button", text: { type: "plain_text", text: label }, url }],
})

/** Most listed resources in one Slack message (Slack allows 50 blocks). */
export const SLACK_RESOURCES_LISTED = 10

export const slackMessage = (event: IntegrationEvent): SlackMessage => {
  switch (event.type) {
    case "scan.completed": {
      const d = event.data
      const account = `${d.scan.account.name} (${d.scan.account.provider.toUpperCase()} ${d.scan.account.cloud_account_id})`
      const failing = sum(d.failing_resources)
      const fresh = sum(d.new_failing_resources)
      return {
        text: `Scan #${d.scan.id} of ${account} completed: ${failing} failing resources, ${fresh} new`,
        blocks: [
          header(`Scan completed: ${d.scan.account.name}`),
          section(`*${escapeSlack(account)}* — scan ${link(d.scan.url, `#${d.scan.id}`)} (${escapeSlack(d.scan.trigger)})`),
          {
            type: "section",
            fields: [
              { type: "mrkdwn", text: `*Checks failed*\n${d.findings.failed}` },
              { type: "mrkdwn", text: `*Checks passed*\n${d.findings.passed}` },
              { type: "mrkdwn", text: `*Checks muted*\n${d.findings.muted}` },
              { type: "mrkdwn", text: `*Not evaluated*\n${d.findings.not_evaluated}` },
            ],
          },
          section(`*Failing resources: ${failing}*\n${bySeverity(d.failing_resources)}`),
          section(`*New failing: ${fresh}*   *Fixed: ${sum(d.fixed_resources)}*\n${bySeverity(d.new_failing_resources)}`),
          button(d.scan.url, "Open the scan"),
        ],
      }
    }
    case "findings.new_failing": {
      const d = event.data
      const listed = d.resources.slice(0, SLACK_RESOURCES_LISTED)
      const more = d.total - listed.length
      return {
        text: `${d.total} new failing resources (${d.minimum_severity} or above) in ${d.scan.account.name}`,
        blocks: [
          header(`${d.total} new failing resource${d.total === 1 ? "" : "s"} in ${d.scan.account.name}`),
          context(`${bySeverity(d.counts)} — ${escapeSlack(d.minimum_severity)} or above, scan ${link(d.scan.url, `#${d.scan.id}`)}`),
          ...listed.map((r) =>
            section(`${SEVERITY_MARK[r.severity] ?? ""} *${escapeSlack(r.title)}* (${escapeSlack(r.severity)})\n` +
              `\`${escapeSlack(r.resource_id)}\` ${escapeSlack(r.region)} — ${link(r.url, "Open the finding")}`)),
          ...(more > 0 ? [context(`and ${more} more`)] : []),
          button(`${d.scan.url}/findings`, "Open the findings"),
        ],
      }
    }
    case "mute_rule.created":
    case "mute_rule.expired": {
      const d = event.data
      const what = event.type === "mute_rule.created" ? `Mute rule created (${d.rows} rows muted)` : `Mute rule expired (${d.rows} rows unmuted)`
      const scope = [d.rule.check_id, d.rule.resource_pattern, d.rule.tag_key === null ? null : `tag ${d.rule.tag_key}=${d.rule.tag_value ?? "*"}`]
        .filter((x): x is string => x !== null).join(", ")
      return {
        text: `${what}: ${d.rule.reason}`,
        blocks: [section(`*${escapeSlack(what)}*: ${escapeSlack(d.rule.reason)}${scope === "" ? "" : `\n${escapeSlack(scope)}`}\n${link(d.url, "Open the mute rules")}`)],
      }
    }
    case "remediation.completed":
    case "remediation.undone": {
      const d = event.data
      const what = event.type === "remediation.completed" ? "Remediation done" : "Remediation undone"
      return {
        text: `${what}: ${d.remediation.check_id} on ${d.remediation.resource_id}`,
        blocks: [section(`*${what}*: \`${escapeSlack(d.remediation.check_id)}\` on \`${escapeSlack(d.remediation.resource_id)}\` (${escapeSlack(d.remediation.region)})\n${escapeSlack(d.remediation.message)}\n${link(d.url, "Open the finding")}`)],
      }
    }
    case "webhook.test": {
      return {
        text: `Test message from Cloud Audit for "${event.data.webhook.name}"`,
        blocks: [section(`*Test message* from Cloud Audit for *${escapeSlack(event.data.webhook.name)}*: ${escapeSlack(event.data.message)}`)],
      }
    }
    case "report.ready": {
      const d = event.data
      return {
        text: `Compliance report ready for scan #${d.report.scan_id}`,
        blocks: [section(`*Compliance report ready* for scan #${d.report.scan_id} (${escapeSlack(d.report.framework_ids.join(", "))}, ${d.report.pages} pages)\n${link(d.url, "Open compliance")}`)],
      }
    }
  }
}
