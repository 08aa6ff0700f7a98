/**
 * Mail templates (text + HTML) for verification, password reset, invitation, added-to-workspace and
 * password-changed. Every link is built from APP_ORIGIN (passed in as `origin`), never from a request's Host.
 * Values that come from users (names, workspace names) are HTML-escaped in the HTML part.
 */
import { unitLabel } from "../../src/contracts/outcomes.ts"

export type MailKind =
  | "verification"
  | "password_reset"
  | "invitation"
  | "added_to_workspace"
  | "password_changed"
  | "address_in_use"
  | "scan_digest"
  | "remediation_request"
  | "remediation_decision"

export interface MailMessage {
  readonly kind: MailKind
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string
  /** The actionable links in the mail (also logged and kept in the development outbox). */
  readonly links: ReadonlyArray<string>
}

const escapeHtml = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

const link = (origin: string, path: string, query: Record<string, string>): string => {
  const url = new URL(path, `${origin}/`)
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v)
  return url.toString()
}

const greeting = (name: string | undefined): string => (name !== undefined && name.trim() !== "" ? `Hello ${name.trim()},` : "Hello,")

const layout = (title: string, paragraphs: ReadonlyArray<string>, action?: { label: string; href: string }): string =>
  [
    "<!doctype html><html><body style=\"font-family:system-ui,sans-serif;color:#1f2937;max-width:560px;margin:auto\">",
    `<h1 style="font-size:20px">${escapeHtml(title)}</h1>`,
    ...paragraphs.map((p) => `<p>${p}</p>`),
    action === undefined
      ? ""
      : `<p><a href="${escapeHtml(action.href)}" style="display:inline-block;padding:10px 16px;background:#2563eb;color:#fff;` +
        `text-decoration:none;border-radius:6px">${escapeHtml(action.label)}</a></p>` +
        `<p style="font-size:12px;color:#6b7280">Or paste this link into your browser: ${escapeHtml(action.href)}</p>`,
    "<p style=\"font-size:12px;color:#6b7280\">Cloud Audit</p></body></html>",
  ].join("")

export const verificationMail = (p: {
  origin: string
  to: string
  firstName?: string | undefined
  token: string
  expiresInMinutes: number
}): MailMessage => {
  const href = link(p.origin, "/verify-email", { token: p.token, email: p.to })
  return {
    kind: "verification",
    to: p.to,
    subject: "Verify your email address",
    links: [href],
    text: `${greeting(p.firstName)}\n\nPlease confirm your email address for Cloud Audit by opening this link:\n\n${href}\n\n` +
      `The link is valid for ${p.expiresInMinutes} minutes. If you did not sign up, ignore this email.\n`,
    html: layout("Verify your email address", [
      escapeHtml(greeting(p.firstName)),
      "Please confirm your email address for Cloud Audit.",
      `The link is valid for ${p.expiresInMinutes} minutes. If you did not sign up, ignore this email.`,
    ], { label: "Verify email", href }),
  }
}

export const passwordResetMail = (p: {
  origin: string
  to: string
  firstName?: string | undefined
  token: string
  expiresInMinutes: number
  requestedBy?: string | undefined
}): MailMessage => {
  const href = link(p.origin, "/reset-password", { token: p.token })
  const who = p.requestedBy === undefined ? "Someone (hopefully you) asked" : `${p.requestedBy} asked`
  return {
    kind: "password_reset",
    to: p.to,
    subject: "Reset your password",
    links: [href],
    text: `${greeting(p.firstName)}\n\n${who} to reset your Cloud Audit password. Choose a new password here:\n\n${href}\n\n` +
      `The link is valid for ${p.expiresInMinutes} minutes and works once. If you did not ask for this, ignore this email.\n`,
    html: layout("Reset your password", [
      escapeHtml(greeting(p.firstName)),
      `${escapeHtml(who)} to reset your Cloud Audit password.`,
      `The link is valid for ${p.expiresInMinutes} minutes and works once. If you did not ask for this, ignore this email.`,
    ], { label: "Choose a new password", href }),
  }
}

export const invitationLink = (origin: string, token: string): string => link(origin, "/invitation/accept", { token })

export const invitationMail = (p: {
  origin: string
  to: string
  token: string
  workspaceName: string
  roleName: string
  inviterName: string
  expiresInDays: number
}): MailMessage => {
  const href = invitationLink(p.origin, p.token)
  return {
    kind: "invitation",
    to: p.to,
    subject: `You're invited to join ${p.workspaceName} on Cloud Audit`,
    links: [href],
    text: `Hello,\n\n${p.inviterName} invited you to join the workspace "${p.workspaceName}" on Cloud Audit as ${p.roleName}.\n\n` +
      `Accept the invitation here:\n\n${href}\n\nThe invitation expires in ${p.expiresInDays} days.\n`,
    html: layout("You're invited", [
      `${escapeHtml(p.inviterName)} invited you to join the workspace <strong>${escapeHtml(p.workspaceName)}</strong> ` +
      `on Cloud Audit as ${escapeHtml(p.roleName)}.`,
      `The invitation expires in ${p.expiresInDays} days.`,
    ], { label: "Accept invitation", href }),
  }
}

export const addedToWorkspaceMail = (p: {
  origin: string
  to: string
  firstName?: string | undefined
  workspaceName: string
  addedBy: string
  newAccount: boolean
}): MailMessage => {
  const href = link(p.origin, "/login", {})
  const account = p.newAccount
    ? "An account was created for you with this email address. Ask the person who added you for the password, or use " +
      "'Forgot your password?' on the sign-in page to choose your own."
    : "Sign in with your existing account to open it."
  return {
    kind: "added_to_workspace",
    to: p.to,
    subject: `You've been added to ${p.workspaceName}`,
    links: [href],
    text: `${greeting(p.firstName)}\n\n${p.addedBy} added you to the workspace "${p.workspaceName}" on Cloud Audit.\n${account}\n\n${href}\n`,
    html: layout(`You've been added to ${p.workspaceName}`, [
      escapeHtml(greeting(p.firstName)),
      `${escapeHtml(p.addedBy)} added you to the workspace <strong>${escapeHtml(p.workspaceName)}</strong> on Cloud Audit.`,
      escapeHtml(account),
    ], { label: "Sign in", href }),
  }
}

/**
 * Sent to an address someone asked to make the login of another account while it already belongs to an account (or
 * is being claimed by one): the requester is told "we sent a confirmation to the new address" either way, so the
 * answer reveals nothing; the mailbox's owner learns of the attempt here. No link carries a token.
 */
export const addressInUseMail = (p: { origin: string; to: string }): MailMessage => {
  const href = link(p.origin, "/login", {})
  const what = "Someone asked to use this email address for a Cloud Audit account, but it is already in use. Nothing was changed."
  const next = "If that was you, sign in with this address instead (or use 'Forgot your password?'). If not, you can ignore this email."
  return {
    kind: "address_in_use",
    to: p.to,
    subject: "This email address is already in use",
    links: [href],
    text: `Hello,\n\n${what}\n${next}\n\n${href}\n`,
    html: layout("This email address is already in use", [escapeHtml(what), escapeHtml(next)], { label: "Sign in", href }),
  }
}

export const passwordChangedMail = (p: {
  origin: string
  to: string
  firstName?: string | undefined
  how: "reset" | "changed"
}): MailMessage => {
  const href = link(p.origin, "/login", {})
  const what = p.how === "reset"
    ? "Your Cloud Audit password was reset. All your sessions were signed out."
    : "Your Cloud Audit password was changed. Your other sessions were signed out."
  return {
    kind: "password_changed",
    to: p.to,
    subject: "Your password was changed",
    links: [href],
    text: `${greeting(p.firstName)}\n\n${what}\nIf this was not you, reset your password immediately from the sign-in page:\n\n${href}\n`,
    html: layout("Your password was changed", [
      escapeHtml(greeting(p.firstName)),
      escapeHtml(what),
      "If this was not you, reset your password immediately from the sign-in page.",
    ], { label: "Sign in", href }),
  }
}

/** The address that turns the scan digest off: the profile page (sign-in required), whose digest card offers it at once. */
export const digestOffLink = (origin: string): string => link(origin, "/dashboard/profile", { digest: "off" })

/** One severity's line of a scan digest. */
export interface DigestCounts {
  readonly severity: string
  readonly newFailing: number
  readonly fixed: number
  readonly stillFailing: number
}

/**
 * The email after a completed scan (issue 13 "Digest"): the account, new failing / fixed / still failing resources by
 * severity (muted ones left out), and the top new failing checks with links to their findings.
 */
export const scanDigestMail = (p: {
  origin: string
  to: string
  firstName?: string | undefined
  workspaceName: string
  accountName: string
  scanId: number
  counts: ReadonlyArray<DigestCounts>
  topNew: ReadonlyArray<{ readonly findingId: number; readonly title: string; readonly severity: string; readonly resources: number }>
}): MailMessage => {
  const scanHref = link(p.origin, `/dashboard/scans/${p.scanId}`, {})
  // The way out: the profile's digest switch, behind sign-in (no token in the mail to forward or leak), where the card
  // offers "Turn off scan digests" at once.
  const offHref = digestOffLink(p.origin)
  const findingHref = (id: number) => link(p.origin, `/dashboard/scans/${p.scanId}/findings/${id}`, {})
  const total = (k: "newFailing" | "fixed" | "stillFailing") => p.counts.reduce((n, c) => n + c[k], 0)
  // Every number says its unit (docs/outcomes.md): resources, as the algebra counts them (server/posture/algebra.ts).
  const summary = `${total("newFailing")} new failing, ${total("fixed")} fixed, ${total("stillFailing")} still failing resources`
  const lines = p.counts.map((c) => `${c.severity}: ${c.newFailing} new failing, ${c.fixed} fixed, ${c.stillFailing} still failing resources`)
  const top = p.topNew.map((t) => `- [${t.severity}] ${t.title} (${unitLabel(t.resources, "newFailingResources")}): ${findingHref(t.findingId)}`)
  const cell = (v: string | number) => `<td style="padding:4px 8px;border-bottom:1px solid #e5e7eb">${escapeHtml(String(v))}</td>`
  const table =
    "<table style=\"border-collapse:collapse\"><tr><th align=\"left\">Severity</th><th>New failing resources</th><th>Fixed resources</th><th>Still failing resources</th></tr>" +
    p.counts.map((c) => `<tr>${cell(c.severity)}${cell(c.newFailing)}${cell(c.fixed)}${cell(c.stillFailing)}</tr>`).join("") +
    "</table>"
  const topHtml = p.topNew.length === 0
    ? "No new failing checks."
    : "Top new failing checks:<br>" + p.topNew.map((t) =>
        `<a href="${escapeHtml(findingHref(t.findingId))}">${escapeHtml(`[${t.severity}] ${t.title}`)}</a> (${escapeHtml(unitLabel(t.resources, "newFailingResources"))})`).join("<br>")
  return {
    kind: "scan_digest",
    to: p.to,
    subject: `Scan of ${p.accountName}: ${summary}`,
    links: [scanHref, ...p.topNew.map((t) => findingHref(t.findingId)), offHref],
    text: [
      greeting(p.firstName), "",
      `The scan of ${p.accountName} in the workspace "${p.workspaceName}" has completed: ${summary}.`, "",
      ...lines, "",
      ...(top.length === 0 ? ["No new failing checks."] : ["Top new failing checks:", ...top]), "",
      `Open the scan: ${scanHref}`, "",
      "You receive this email because you turned on scan digests in your profile.",
      `Turn them off: ${offHref}`, "",
    ].join("\n"),
    html: layout(`Scan of ${p.accountName}`, [
      escapeHtml(greeting(p.firstName)),
      `The scan of <strong>${escapeHtml(p.accountName)}</strong> in the workspace <strong>${escapeHtml(p.workspaceName)}</strong> has completed: ${escapeHtml(summary)}.`,
      table,
      topHtml,
      "<span style=\"font-size:12px;color:#6b7280\">You receive this email because you turned on scan digests in your profile. " +
        `<a href="${escapeHtml(offHref)}" style="color:#4b5563">Turn off scan digests</a></span>`,
    ], { label: "Open the scan", href: scanHref }),
  }
}

/**
 * To each member who may approve (issue 32, four eyes): a remediation of an account requiring approval was requested;
 * the link opens the approvals inbox at the request.
 */
export const remediationRequestMail = (p: {
  origin: string
  to: string
  firstName?: string | undefined
  workspaceName: string
  accountName: string
  requester: string
  title: string
  resources: ReadonlyArray<string>
  comment: string | null
  requestId: number
  expiresAt: string
}): MailMessage => {
  const href = link(p.origin, "/dashboard/approvals", { request: String(p.requestId) })
  const what = `${p.title} on ${p.resources.join(", ")}`
  return {
    kind: "remediation_request",
    to: p.to,
    subject: `Approval needed: remediation on ${p.accountName}`,
    links: [href],
    text: [
      greeting(p.firstName), "",
      `${p.requester} asks to remediate ${what} in the account ${p.accountName} (workspace "${p.workspaceName}").`,
      ...(p.comment === null ? [] : [`Their comment: ${p.comment}`]),
      `Nothing runs until another member approves. The request expires at ${p.expiresAt}.`, "",
      `Approve or reject it: ${href}`, "",
    ].join("\n"),
    html: layout("Approval needed", [
      escapeHtml(greeting(p.firstName)),
      `${escapeHtml(p.requester)} asks to remediate <strong>${escapeHtml(what)}</strong> in the account <strong>${escapeHtml(p.accountName)}</strong> (workspace <strong>${escapeHtml(p.workspaceName)}</strong>).`,
      ...(p.comment === null ? [] : [`Their comment: ${escapeHtml(p.comment)}`]),
      `Nothing runs until another member approves. The request expires at ${escapeHtml(p.expiresAt)}.`,
    ], { label: "Review the request", href }),
  }
}

/** To the requester: their remediation request was approved (the fix started), rejected or expired. */
export const remediationDecisionMail = (p: {
  origin: string
  to: string
  firstName?: string | undefined
  accountName: string
  title: string
  resources: ReadonlyArray<string>
  outcome: "approved" | "rejected" | "expired"
  decider: string | null
  comment: string | null
  requestId: number
  findingPath: string
}): MailMessage => {
  const href = link(p.origin, p.findingPath, {})
  const what = `${p.title} on ${p.resources.join(", ")}`
  const verdict = p.outcome === "expired"
    ? "expired before anyone approved it; nothing was changed"
    : p.outcome === "approved"
      ? `was approved by ${p.decider ?? "another member"}; the remediation has started`
      : `was rejected by ${p.decider ?? "another member"}; nothing was changed`
  const sentence = `Your request to remediate ${what} in the account ${p.accountName} ${verdict}.`
  return {
    kind: "remediation_decision",
    to: p.to,
    subject: `Remediation request ${p.outcome}: ${p.accountName}`,
    links: [href],
    text: [
      greeting(p.firstName), "",
      sentence,
      ...(p.comment === null ? [] : [`Comment: ${p.comment}`]), "",
      `Open the finding: ${href}`, "",
    ].join("\n"),
    html: layout(`Remediation request ${p.outcome}`, [
      escapeHtml(greeting(p.firstName)),
      escapeHtml(sentence),
      ...(p.comment === null ? [] : [`Comment: ${escapeHtml(p.comment)}`]),
    ], { label: "Open the finding", href }),
  }
}
