/**
 * Validation rules of access §5 and scanning §5: each schema accepts what the spec allows and rejects the
 * rest with the spec's exact message (written out literally here), both through the `validateX` form
 * helpers and through the schema's decode failure (what the server's 400 carries).
 */
import { describe, expect, it } from "vitest"
import fc from "fast-check"
import { Schema } from "effect"
import { issuesOf } from "../../src/contracts/validation.ts"
import {
  LoginForm,
  SignupPayload,
  ResetPasswordPayload,
  VerifyEmailParams,
  checkVerificationLink,
  validateLogin,
  validateResetPassword,
  validateSignup,
  validateForgotPassword,
} from "../../src/contracts/auth.ts"
import { BulkInvitePayload, validateInvitations, validateInvitationSignup, checkInvitationToken, InvitationCompletionPayload } from "../../src/contracts/invitations.ts"
import { CreateUserPayload, validateAddUser, validateTeamEdit } from "../../src/contracts/team.ts"
import { ChangePasswordPayload, validateChangePassword, validateProfile, changedProfileFields } from "../../src/contracts/profile.ts"
import { AddAccountPayload, validateAddAccount } from "../../src/contracts/accounts.ts"
import { ValidationMessages } from "../../src/contracts/messages.ts"
import { decodeServiceAccountKey, isGcpProjectId, serviceAccountKeyIssue, serviceAccountKeyTextIssue } from "../../src/contracts/service-account-key.ts"
import { ScanStartPayload, checkCanStartFromList, checkLaunchScan } from "../../src/contracts/scans.ts"

// ---------------------------------------------------------------------------------------------------
// Generators

const lower = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz".split(""))
const upper = fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZ".split(""))
const digit = fc.constantFrom(..."0123456789".split(""))
const anyChar = fc.constantFrom(..."abcXYZ019!@#$%^&*()_- ".split(""))

/** Passwords the spec allows: ≥ 8 with a lowercase, an uppercase and a digit. */
const strongPassword = fc
  .tuple(lower, upper, digit, fc.array(anyChar, { minLength: 5, maxLength: 40 }), fc.integer())
  .map(([l, u, d, rest, seed]) => {
    const chars = [l, u, d, ...rest]
    // deterministic shuffle
    for (let i = chars.length - 1; i > 0; i--) {
      const j = Math.abs((seed + i * 7919) % (i + 1))
      ;[chars[i], chars[j]] = [chars[j]!, chars[i]!]
    }
    return chars.join("")
  })
/** ≥ 8 characters but missing one character class. */
const weakPassword = fc.oneof(
  fc.stringMatching(/^[a-z0-9]{8,30}$/), // no uppercase
  fc.stringMatching(/^[A-Z0-9]{8,30}$/), // no lowercase
  fc.stringMatching(/^[a-zA-Z]{8,30}$/), // no digit
)
const email = fc.stringMatching(/^[a-z0-9._%+-]{1,20}@[a-z0-9-]{1,20}\.[a-z]{2,6}$/)
const badEmail = fc.oneof(
  fc.stringMatching(/^[a-z0-9]{1,20}$/),
  fc.stringMatching(/^[a-z0-9]{1,10}@[a-z0-9]{1,10}$/),
  fc.stringMatching(/^[a-z]{1,5} [a-z]{1,5}@[a-z]{1,5}\.com$/),
  fc.constant("@example.com"),
)
const name = fc.string({ minLength: 1, maxLength: 50 })
const longName = fc.string({ minLength: 51, maxLength: 120 })
const workspaceName = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 _-]{1,38}[A-Za-z0-9]$/)

const messagesOf = (schema: Schema.Top & Schema.Decoder<unknown, never>, input: unknown) => issuesOf(schema, input).map((i) => i.message)

// ---------------------------------------------------------------------------------------------------

describe("email", () => {
  it("required, then a valid format", () => {
    expect(validateLogin({ email: "", password: "whatever1" }).email).toBe("Email is required")
    expect(validateLogin({ password: "whatever1" }).email).toBe("Email is required")
    fc.assert(fc.property(badEmail, (e) => void expect(validateForgotPassword({ email: e }).email).toBe("Please enter a valid email address")))
    fc.assert(fc.property(email, (e) => void expect(validateForgotPassword({ email: e })).toEqual({})))
  })
})

describe("sign-in", () => {
  it("password at least 8 characters", () => {
    fc.assert(
      fc.property(email, fc.string({ minLength: 8, maxLength: 64 }), (e, p) => {
        expect(validateLogin({ email: e, password: p })).toEqual({})
        expect(Schema.is(LoginForm)({ email: e, password: p })).toBe(true)
      }),
    )
    fc.assert(fc.property(email, fc.string({ minLength: 1, maxLength: 7 }), (e, p) => void expect(validateLogin({ email: e, password: p }).password).toBeDefined()))
  })
})

describe("signup", () => {
  const valid = fc.record({
    first_name: name,
    last_name: name,
    email,
    password: strongPassword,
    workspace_name: workspaceName,
  }).map((v) => ({ ...v, confirm_password: v.password, timezone: "Europe/Paris" }))

  it("accepts what the spec allows (form and wire payload)", () => {
    fc.assert(
      fc.property(valid, (v) => {
        expect(validateSignup(v)).toEqual({})
        const { confirm_password: _c, ...payload } = v
        expect(Schema.is(SignupPayload)(payload)).toBe(true)
      }),
    )
  })
  it("names 1 to 50 ('First name must be less than 50 characters' and the last-name equivalent)", () => {
    fc.assert(
      fc.property(valid, longName, (v, n) => {
        expect(validateSignup({ ...v, first_name: n }).first_name).toBe("First name must be less than 50 characters")
        expect(validateSignup({ ...v, last_name: n }).last_name).toBe("Last name must be less than 50 characters")
        expect(messagesOf(SignupPayload, { ...v, first_name: n })).toContain("First name must be less than 50 characters")
      }),
    )
    expect(validateSignup({ first_name: "" }).first_name).toBeDefined()
  })
  it("password composition", () => {
    fc.assert(
      fc.property(valid, weakPassword, (v, p) => {
        const errors = validateSignup({ ...v, password: p, confirm_password: p })
        expect(errors.password).toBe("Password must contain at least one uppercase letter, one lowercase letter, and one number")
        expect(messagesOf(SignupPayload, { ...v, password: p })).toContain(
          "Password must contain at least one uppercase letter, one lowercase letter, and one number",
        )
      }),
    )
    expect(validateSignup({ password: "Ab1" }).password).toBeDefined()
  })
  it("confirm must match: \"Passwords don't match\"", () => {
    fc.assert(
      fc.property(valid, strongPassword, (v, other) => {
        fc.pre(other !== v.password)
        expect(validateSignup({ ...v, confirm_password: other }).confirm_password).toBe("Passwords don't match")
      }),
    )
  })
  it("workspace name at least 3 characters", () => {
    fc.assert(
      fc.property(valid, fc.string({ maxLength: 2 }), (v, w) => {
        expect(validateSignup({ ...v, workspace_name: w }).workspace_name).toBe("Workspace name must be at least 3 characters")
      }),
    )
  })
})

describe("reset password", () => {
  it("new password as signup; confirm required and must match", () => {
    fc.assert(
      fc.property(strongPassword, fc.string({ minLength: 1 }), (p, t) => {
        expect(validateResetPassword({ token: t, new_password: p, confirm_password: p })).toEqual({})
        expect(Schema.is(ResetPasswordPayload)({ token: t, new_password: p, confirm_password: p })).toBe(true)
        expect(validateResetPassword({ token: t, new_password: p, confirm_password: p + "x" }).confirm_password).toBe("Passwords don't match")
        expect(messagesOf(ResetPasswordPayload, { token: t, new_password: p, confirm_password: p + "x" })).toEqual(["Passwords don't match"])
      }),
    )
    fc.assert(
      fc.property(weakPassword, (p) =>
        void expect(validateResetPassword({ token: "t", new_password: p, confirm_password: p }).new_password).toBe(
          "Password must contain at least one uppercase letter, one lowercase letter, and one number",
        ),
      ),
    )
    expect(validateResetPassword({ token: "t", new_password: "Abcdefg1", confirm_password: "" }).confirm_password).toBeDefined()
  })
})

describe("verification link", () => {
  const token = fc.stringMatching(/^[A-Za-z0-9_-]{32,64}$/)
  it("token ≥ 32 and a valid email, both present", () => {
    fc.assert(
      fc.property(token, email, (t, e) => {
        expect(checkVerificationLink({ token: t, email: e })).toBeUndefined()
        expect(Schema.is(VerifyEmailParams)({ token: t, email: e })).toBe(true)
      }),
    )
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z0-9]{1,31}$/), email, (t, e) =>
        void expect(checkVerificationLink({ token: t, email: e })).toBe("Invalid verification token format."),
      ),
    )
    fc.assert(fc.property(token, badEmail, (t, e) => void expect(checkVerificationLink({ token: t, email: e })).toBe("Invalid email format in verification link.")))
    for (const p of [{}, { token: "x".repeat(40) }, { email: "a@b.co" }, { token: "", email: "a@b.co" }, { token: null, email: null }])
      expect(checkVerificationLink(p)).toBe("Invalid verification link. Missing required parameters.")
    expect(messagesOf(VerifyEmailParams, {})).toEqual([
      "Invalid verification link. Missing required parameters.",
      "Invalid verification link. Missing required parameters.",
    ])
  })
})

describe("invitations (bulk)", () => {
  const row = fc.record({ email, role_id: fc.integer({ min: 1, max: 1000 }), is_custom_role: fc.constant(false) })
  const uniqueRows = fc.uniqueArray(row, { minLength: 1, maxLength: 50, selector: (r) => r.email.toLowerCase() })

  it("1 to 50 rows with distinct emails are accepted; emails are trimmed and lower-cased", () => {
    fc.assert(
      fc.property(uniqueRows, (rows) => {
        const messy = rows.map((r) => ({ ...r, email: `  ${r.email.toUpperCase()} ` }))
        expect(validateInvitations({ invitations: messy })).toEqual({})
        const decoded = Schema.decodeUnknownSync(BulkInvitePayload)({ invitations: messy })
        expect(decoded.invitations.map((r) => r.email)).toEqual(rows.map((r) => r.email.toLowerCase()))
      }),
    )
  })
  it("'At least one invitation is required' / 'Maximum 50 invitations allowed at once'", () => {
    expect(validateInvitations({ invitations: [] }).invitations).toBe("At least one invitation is required")
    fc.assert(
      fc.property(fc.uniqueArray(row, { minLength: 51, maxLength: 70, selector: (r) => r.email.toLowerCase() }), (rows) => {
        expect(validateInvitations({ invitations: rows }).invitations).toBe("Maximum 50 invitations allowed at once")
        expect(messagesOf(BulkInvitePayload, { invitations: rows })).toContain("Maximum 50 invitations allowed at once")
      }),
    )
  })
  it("'Duplicate email addresses are not allowed', case-insensitively", () => {
    fc.assert(
      fc.property(uniqueRows.filter((r) => r.length < 50), fc.nat(), (rows, k) => {
        const dup = rows[k % rows.length]!
        const withDup = [...rows, { ...dup, email: ` ${dup.email.toUpperCase()}` }]
        expect(validateInvitations({ invitations: withDup }).invitations).toBe("Duplicate email addresses are not allowed")
        expect(messagesOf(BulkInvitePayload, { invitations: withDup })).toContain("Duplicate email addresses are not allowed")
      }),
    )
  })
  it("each row needs an email and a role", () => {
    const errors = validateInvitations({ invitations: [{ email: "", role_id: 1, is_custom_role: false }, { email: "a@b.co", is_custom_role: false }] })
    expect(errors["invitations.0.email"]).toBe("Email is required")
    expect(errors["invitations.1.role_id"]).toBe("Please select a role")
  })
})

describe("add user / team edit", () => {
  const valid = fc.record({ first_name: name, last_name: name, email, password: fc.string({ minLength: 8, maxLength: 30 }), role_id: fc.integer({ min: 1, max: 99 }), is_custom_role: fc.constant(false) })
  it("accepts names 1–50, an email, a password ≥ 8 and a role", () => {
    fc.assert(fc.property(valid, (v) => void expect(validateAddUser(v)).toEqual({})))
    fc.assert(fc.property(valid, (v) => void expect(Schema.is(CreateUserPayload)(v)).toBe(true)))
  })
  it("'Please select a role'", () => {
    fc.assert(
      fc.property(valid, fc.constantFrom(undefined, 0, -1), (v, r) => {
        const input = r === undefined ? { ...v, role_id: undefined } : { ...v, role_id: r }
        if (r === undefined) delete (input as Record<string, unknown>)["role_id"]
        expect(validateAddUser(input).role_id).toBe("Please select a role")
      }),
    )
    fc.assert(fc.property(valid, fc.string({ maxLength: 7 }), (v, p) => void expect(validateAddUser({ ...v, password: p }).password).toBeDefined()))
  })
  it("team edit: 'Please select a valid role' (not for the owner's row)", () => {
    const base = { user_id: 3, first_name: "Ada", last_name: "L", is_custom_role: false }
    expect(validateTeamEdit({ ...base, role_id: 2 }, { isOwnerRow: false })).toEqual({})
    expect(validateTeamEdit(base, { isOwnerRow: false }).role_id).toBe("Please select a valid role")
    expect(validateTeamEdit({ ...base, role_id: null }, { isOwnerRow: false }).role_id).toBe("Please select a valid role")
    expect(validateTeamEdit({ ...base, role_id: 0 }, { isOwnerRow: false }).role_id).toBe("Please select a valid role")
    expect(validateTeamEdit(base, { isOwnerRow: true })).toEqual({})
  })
})

describe("invitation signup", () => {
  it("names 1–50, password as signup, confirm, optional timezone; missing token → 'Invalid invitation token'", () => {
    fc.assert(
      fc.property(name, name, strongPassword, fc.string({ minLength: 1 }), (f, l, p, t) => {
        const v = { invitation_token: t, first_name: f, last_name: l, password: p, confirm_password: p }
        expect(validateInvitationSignup(v)).toEqual({})
        expect(Schema.is(InvitationCompletionPayload)({ ...v, timezone: "UTC" })).toBe(true)
        expect(validateInvitationSignup({ ...v, confirm_password: p + "!" }).confirm_password).toBe("Passwords don't match")
      }),
    )
    expect(checkInvitationToken(undefined)).toBe("Invalid invitation token")
    expect(checkInvitationToken("  ")).toBe("Invalid invitation token")
    expect(checkInvitationToken("abc")).toBeUndefined()
    expect(validateInvitationSignup({ first_name: "A", last_name: "B", password: "Abcdefg1", confirm_password: "Abcdefg1" }).invitation_token).toBe(
      "Invalid invitation token",
    )
  })
})

describe("profile and change password", () => {
  it("profile: names 1–50, email, timezone optional but non-empty", () => {
    fc.assert(fc.property(name, name, email, (f, l, e) => void expect(validateProfile({ first_name: f, last_name: l, email: e })).toEqual({})))
    expect(validateProfile({ first_name: "A", last_name: "B", email: "a@b.co", timezone: "" }).timezone).toBeDefined()
    expect(validateProfile({ first_name: "A", last_name: "B", email: "nope" }).email).toBe("Please enter a valid email address")
  })
  it("save is disabled unless something changed", () => {
    const before = { first_name: "Ada", last_name: "Lovelace", email: "ada@x.io", timezone: "UTC" }
    expect(changedProfileFields(before, before)).toEqual([])
    expect(changedProfileFields(before, { ...before, timezone: "Europe/Paris" })).toEqual([
      { field: "timezone", label: "Timezone", from: "UTC", to: "Europe/Paris" },
    ])
  })
  it("change password: current required, composition, \"New passwords don't match\"", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), strongPassword, (cur, p) => {
        expect(validateChangePassword({ current_password: cur, new_password: p, confirm_password: p })).toEqual({})
        expect(validateChangePassword({ current_password: cur, new_password: p, confirm_password: p + "1" }).confirm_password).toBe("New passwords don't match")
        expect(messagesOf(ChangePasswordPayload, { current_password: cur, new_password: p, confirm_password: p + "1" })).toEqual(["New passwords don't match"])
      }),
    )
    expect(validateChangePassword({ current_password: "", new_password: "Abcdefg1", confirm_password: "Abcdefg1" }).current_password).toBeDefined()
  })
})

/** A service-account key file shaped like the one the Google Cloud console downloads (the key itself is a dummy). */
const GCP_KEY = {
  type: "service_account",
  project_id: "audit-prod-42",
  private_key_id: "0123456789abcdef0123456789abcdef01234567",
  private_key: "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n-----END PRIVATE KEY-----\n",
  client_email: "scanner@audit-prod-42.iam.gserviceaccount.com",
  client_id: "109876543210987654321",
  auth_uri: "https://accounts.google.com/o/oauth2/auth",
  token_uri: "https://oauth2.googleapis.com/token",
  auth_provider_x509_cert_url: "https://www.googleapis.com/oauth2/v1/certs",
  universe_domain: "googleapis.com",
}

describe("GCP service-account key (contract validation shared by the form, the API and the engine)", () => {
  const issue = (patch: Record<string, unknown>, drop: ReadonlyArray<string> = []) => {
    const key: Record<string, unknown> = { ...GCP_KEY, ...patch }
    for (const k of drop) delete key[k]
    return serviceAccountKeyIssue(key)
  }
  it("accepts a complete key, with or without token_uri, and a loopback http token endpoint (test servers)", () => {
    expect(issue({})).toBeUndefined()
    expect(issue({}, ["token_uri", "private_key_id", "client_id", "universe_domain"])).toBeUndefined()
    expect(issue({ token_uri: "http://127.0.0.1:4010/oauth2.googleapis.com/token" })).toBeUndefined()
    expect(issue({ token_uri: "http://localhost:8080/token" })).toBeUndefined()
    expect(issue({ project_id: "example.com:legacy-project" })).toBeUndefined()
    expect(serviceAccountKeyTextIssue(JSON.stringify(GCP_KEY))).toBeUndefined()
    expect(decodeServiceAccountKey(JSON.stringify(GCP_KEY))).toMatchObject({ ok: true, key: { client_email: GCP_KEY.client_email, project_id: "audit-prod-42" } })
  })
  it("a JSON object only", () => {
    for (const text of ["not json", "[]", "null", '"a string"', "42"]) expect(serviceAccountKeyTextIssue(text), text).toBe(ValidationMessages.serviceAccountKeyInvalid)
  })
  it('type must be "service_account"', () => {
    expect(issue({ type: "authorized_user" })).toBe(ValidationMessages.serviceAccountKeyType)
    expect(issue({ type: "external_account" })).toBe(ValidationMessages.serviceAccountKeyType)
    expect(issue({}, ["type"])).toBe(ValidationMessages.serviceAccountKeyType)
  })
  it("client_email must be an e-mail address", () => {
    for (const v of [undefined, "", "scanner", "scanner@", "a b@c.com", 7]) {
      expect(v === undefined ? issue({}, ["client_email"]) : issue({ client_email: v }), String(v)).toBe(ValidationMessages.serviceAccountKeyClientEmail)
    }
  })
  it("private_key must hold a PKCS#8 PEM block", () => {
    for (const v of ["", "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC", "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----\nMIIE", null]) {
      expect(issue({ private_key: v }), String(v)).toBe(ValidationMessages.serviceAccountKeyPrivateKey)
    }
    expect(issue({}, ["private_key"])).toBe(ValidationMessages.serviceAccountKeyPrivateKey)
  })
  it("project_id must be a Google Cloud project id", () => {
    for (const v of ["", "ab", "Audit-Prod", "1project", "project-", "has_underscore", "a".repeat(31)]) expect(issue({ project_id: v }), v).toBe(ValidationMessages.serviceAccountKeyProjectId)
    expect(issue({}, ["project_id"])).toBe(ValidationMessages.serviceAccountKeyProjectId)
    fc.assert(fc.property(fc.stringMatching(/^[a-z][a-z0-9-]{4,28}[a-z0-9]$/), (p) => isGcpProjectId(p)))
  })
  it("token_uri, when present, must be https (http only on loopback)", () => {
    for (const v of ["http://oauth2.googleapis.com/token", "http://169.254.169.254/token", "ftp://x/token", "not a url", 1]) expect(issue({ token_uri: v }), String(v)).toBe(ValidationMessages.serviceAccountKeyTokenUri)
  })
  it("reports the first failing rule only, and never quotes the key", () => {
    const all = serviceAccountKeyIssue({ type: "service_account", client_email: "x", private_key: "secret-material", project_id: "P" })
    expect(all).toBe(ValidationMessages.serviceAccountKeyClientEmail)
    expect(all).not.toContain("secret-material")
    expect(decodeServiceAccountKey({ ...GCP_KEY, private_key: "secret-material" })).toEqual({ ok: false, message: ValidationMessages.serviceAccountKeyPrivateKey })
  })
})

describe("add account (scanning §5)", () => {
  const base = { cloud_provider_id: 1, is_organization: false }
  it("accepts an AWS account with keys, or with a role", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 50 }).filter((s) => s.trim() !== ""), fc.stringMatching(/^AKIA[A-Z0-9]{16}$/), fc.stringMatching(/^[A-Za-z0-9/+]{40}$/), (n, ak, sk) => {
        const v = { ...base, account_name: n, credentials: { access_key: ak, secret_key: sk } }
        expect(validateAddAccount(v)).toEqual({})
        expect(Schema.is(AddAccountPayload)(v)).toBe(true)
      }),
    )
    expect(validateAddAccount({ ...base, account_name: "prod", credentials: { role_arn: "arn:aws:iam::123456789012:role/Audit", external_id: "x" } })).toEqual({})
  })
  it("'Account name is required', 'Access Key ID is required', 'Secret Access Key is required'", () => {
    expect(validateAddAccount({ ...base, account_name: "  ", credentials: {} })).toEqual({
      account_name: "Account name is required",
      "credentials.access_key": "Access Key ID is required",
      "credentials.secret_key": "Secret Access Key is required",
    })
    expect(messagesOf(AddAccountPayload, { ...base, account_name: "x", credentials: { access_key: "AKIA" } })).toEqual(["Secret Access Key is required"])
    expect(messagesOf(AddAccountPayload, { ...base, account_name: "x", credentials: { secret_key: "s" } })).toEqual(["Access Key ID is required"])
  })
  it("GCP and Azure variants", () => {
    const gcp = (key: unknown) => ({ cloud_provider_id: 2, is_organization: false, account_name: "g", credentials: { service_account_key: typeof key === "string" ? key : JSON.stringify(key) } })
    expect(validateAddAccount(gcp(GCP_KEY))).toEqual({})
    expect(Schema.is(AddAccountPayload)(gcp(GCP_KEY))).toBe(true)
    expect(validateAddAccount(gcp("not json"))).toEqual({ "credentials.service_account_key": "Service account key must be valid JSON" })
    expect(validateAddAccount({ ...gcp(""), credentials: {} })).toEqual({ "credentials.service_account_key": "Service account key is required" })
    // The loose key the contract used to accept is refused now, with the first missing piece named.
    expect(messagesOf(AddAccountPayload, gcp('{"type":"service_account"}'))).toEqual(["Service account key must contain a valid client_email"])
    const az = validateAddAccount({ cloud_provider_id: 3, is_organization: false, account_name: "a", credentials: { tenant_id: "t" } })
    expect(Object.keys(az).sort()).toEqual(["credentials.client_id", "credentials.client_secret", "credentials.subscription_id"])
  })
})

describe("launch scan (scanning §5, §6)", () => {
  const ok = { canLaunch: true, userId: 7, accountId: 3, cloudProviderId: 1 }
  it("produces the payload with a lower-case provider name", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), fc.integer({ min: 1, max: 1e6 }), fc.constantFrom(1, 2, 3), (u, a, p) => {
        const r = checkLaunchScan({ canLaunch: true, userId: u, accountId: a, cloudProviderId: p })
        expect(r.ok).toBe(true)
        if (r.ok) {
          expect(r.payload.cloud_provider_name).toBe(["aws", "gcp", "azure"][p - 1])
          expect(Schema.is(ScanStartPayload)(r.payload)).toBe(true)
        }
      }),
    )
    expect(checkLaunchScan({ ...ok, accountId: "42" })).toMatchObject({ ok: true, payload: { account_id: 42 } })
  })
  it("the rules in order, with the spec's texts", () => {
    expect(checkLaunchScan({ ...ok, canLaunch: false })).toEqual({ ok: false, message: "Permission denied: Cannot launch scans" })
    expect(checkLaunchScan({ ...ok, accountId: null })).toEqual({ ok: false, message: "Please select an account to scan" })
    expect(checkLaunchScan({ ...ok, cloudProviderId: 9 })).toEqual({ ok: false, message: "Invalid cloud provider" })
    expect(checkLaunchScan({ ...ok, cloudProviderId: 9, knownProviderIds: [1, 9] })).toMatchObject({ ok: true })
    expect(checkLaunchScan({ ...ok, accountId: "12a" })).toEqual({ ok: false, message: "Invalid account ID" })
    expect(checkLaunchScan({ ...ok, userId: undefined })).toEqual({ ok: false, message: "User authentication required. Please log in again." })
  })
  it("from the list, at least one account is needed", () => {
    expect(checkCanStartFromList(0)).toBe("You need to create an account before running a scan")
    expect(checkCanStartFromList(2)).toBeUndefined()
  })
  it("the wire payload rejects upper-case provider names and missing fields with the spec's texts", () => {
    expect(messagesOf(ScanStartPayload, { user_id: 1, account_id: 1, cloud_provider_id: 1, cloud_provider_name: "AWS" })).toEqual(["Invalid cloud provider"])
    expect(messagesOf(ScanStartPayload, { cloud_provider_id: 1, cloud_provider_name: "aws" })).toEqual([
      "User authentication required. Please log in again.",
      "Please select an account to scan",
    ])
  })
})
