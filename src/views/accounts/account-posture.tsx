/**
 * The account page's posture cards (beyond the spec, issue 13), over `accountPostureMachine`: the scan schedule (off,
 * daily, weekly, monthly at a time in a time zone; the next run; the default scope of regions and services, which a
 * scan launched by hand uses too) with Edit / Save, and the mute rules that apply to the account with Delete.
 */
import { useActorRef, useSelector } from "@xstate/react"
import type { ActorRefFrom } from "xstate"
import type { AccountId } from "../../contracts/ids.ts"
import { ScanningMessages } from "../../contracts/messages.ts"
import { describeMuteScope, PostureMessages, SCHEDULE_FREQUENCIES, WEEKDAYS, type ScanSchedule } from "../../contracts/posture.ts"
import { OrganizationMessages } from "../../contracts/organizations.ts"
import { selectScheduleRetired, type accountPostureMachine, type ScheduleDraft } from "../../machines/account-posture.machine.ts"
import { AlertBox } from "../ui/alert-box.tsx"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Card } from "../ui/card.tsx"
import { Checkbox } from "../ui/checkbox.tsx"
import { Select, SelectItem } from "../ui/select.tsx"
import { TextField } from "../ui/text-field.tsx"
import { TimeZoneField } from "../ui/time-zone-field.tsx"
import { useAccountPostureLogic, useScanActorOptions } from "../scanning/scan-logic.ts"
import { ErrorBox, Fact, formatDateTime, formatDateTimeIn, GatedButton, LoadingBox, localToday } from "../scanning/scan-parts.tsx"
import * as shared from "../scanning/scanning.css.ts"
import * as css from "./account-detail.css.ts"
import { MuteRuleFormDialog, type MuteRuleFormRef } from "./mute-rule-form-dialog.tsx"

type PostureRef = ActorRefFrom<typeof accountPostureMachine>

const FREQUENCY_LABELS: Readonly<Record<ScanSchedule["frequency"], string>> = { off: "Off", daily: "Daily", weekly: "Weekly", monthly: "Monthly" }

/** "Weekly on Monday at 02:00 (Europe/Paris)". */
export const scheduleSummary = (s: Pick<ScanSchedule, "frequency" | "time_of_day" | "weekday" | "day_of_month" | "timezone">): string =>
  s.frequency === "off"
    ? "No scheduled scans"
    : `${FREQUENCY_LABELS[s.frequency]}${s.frequency === "weekly" ? ` on ${WEEKDAYS[s.weekday] ?? ""}` : s.frequency === "monthly" ? ` on day ${s.day_of_month}` : ""} at ${s.time_of_day} (${s.timezone})`

const listLabel = (xs: ReadonlyArray<string> | null, all: string) => (xs === null ? all : xs.join(", "))

/** Toggles one entry of a scope list: null (everything) becomes every entry but this one. */
const toggle = (list: ReadonlyArray<string> | null, every: ReadonlyArray<string>, item: string, on: boolean): ReadonlyArray<string> | null => {
  const current = list ?? every
  const next = on ? [...new Set([...current, item])] : current.filter((x) => x !== item)
  return every.every((x) => next.includes(x)) ? null : next
}

function ScopeChoices({ label, options, selected, onChange }: {
  readonly label: string
  readonly options: ReadonlyArray<{ readonly key: string; readonly name: string }>
  readonly selected: ReadonlyArray<string> | null
  readonly onChange: (next: ReadonlyArray<string> | null) => void
}) {
  const every = options.map((o) => o.key)
  return (
    <fieldset className={css.scopeSet}>
      <legend className={shared.factLabel}>{label}</legend>
      <Checkbox isSelected={selected === null} onChange={(on) => onChange(on ? null : [])}>
        All
      </Checkbox>
      <div className={css.scopeGrid}>
        {options.map((o) => (
          <Checkbox key={o.key} isSelected={selected === null || selected.includes(o.key)} onChange={(on) => onChange(toggle(selected, every, o.key, on))}>
            {o.name}
          </Checkbox>
        ))}
      </div>
    </fieldset>
  )
}

function ScheduleEditor({ postureRef, schedule, draft }: { readonly postureRef: PostureRef; readonly schedule: ScanSchedule; readonly draft: ScheduleDraft }) {
  const saving = useSelector(postureRef, (s) => s.matches({ schedule: "saving" }))
  const error = useSelector(postureRef, (s) => s.context.scheduleError)
  const change = (patch: Partial<ScheduleDraft>) => postureRef.send({ type: "draft.changed", patch })
  return (
    <div className={shared.fieldStack}>
      <div className={css.scheduleRow}>
        <Select label="Frequency" selectedKey={draft.frequency} onSelectionChange={(key) => change({ frequency: key as ScheduleDraft["frequency"] })}>
          {SCHEDULE_FREQUENCIES.map((f) => (
            <SelectItem key={f} id={f}>
              {FREQUENCY_LABELS[f]}
            </SelectItem>
          ))}
        </Select>
        {draft.frequency === "weekly" ? (
          <Select label="Day" selectedKey={String(draft.weekday ?? 1)} onSelectionChange={(key) => change({ weekday: Number(key) })}>
            {WEEKDAYS.map((d, i) => (
              <SelectItem key={d} id={String(i)}>
                {d}
              </SelectItem>
            ))}
          </Select>
        ) : null}
        {draft.frequency === "monthly" ? (
          <TextField
            label="Day of the month"
            type="number"
            value={String(draft.day_of_month ?? 1)}
            onChange={(v) => change({ day_of_month: Math.min(31, Math.max(1, Number(v) || 1)) })}
            description="31 runs on the last day of shorter months"
          />
        ) : null}
        <TextField label="Time" type="time" value={draft.time_of_day} onChange={(v) => change({ time_of_day: v })} />
        <TimeZoneField value={draft.timezone} onChange={(timezone) => change({ timezone })} />
      </div>
      {schedule.available_regions.length === 0 ? null : (
        <ScopeChoices
          label="Regions"
          options={schedule.available_regions.map((r) => ({ key: r, name: r }))}
          selected={draft.regions ?? null}
          onChange={(regions) => change({ regions })}
        />
      )}
      <ScopeChoices label="Services" options={schedule.available_services} selected={draft.services ?? null} onChange={(services) => change({ services })} />
      {error === null ? null : <AlertBox tone="error" title={error} />}
      <div className={shared.actions}>
        <Button variant="secondary" onPress={() => postureRef.send({ type: "schedule.editCanceled" })} isDisabled={saving}>
          Cancel
        </Button>
        <Button onPress={() => postureRef.send({ type: "schedule.saveRequested" })} isPending={saving}>
          Save schedule
        </Button>
      </div>
    </div>
  )
}

function ScheduleCard({ postureRef }: { readonly postureRef: PostureRef }) {
  const schedule = useSelector(postureRef, (s) => s.context.schedule)
  const draft = useSelector(postureRef, (s) => s.context.draft)
  const loading = useSelector(postureRef, (s) => s.matches({ schedule: "loading" }))
  const failed = useSelector(postureRef, (s) => s.matches({ schedule: "failed" }))
  const editing = useSelector(postureRef, (s) => s.matches({ schedule: "editing" }) || s.matches({ schedule: "saving" }))
  const canSchedule = useSelector(postureRef, (s) => s.context.viewer?.canLaunchScans === true)
  const retired = useSelector(postureRef, selectScheduleRetired)
  const error = useSelector(postureRef, (s) => s.context.scheduleError)
  return (
    <Card
      title="Scan schedule"
      level={2}
      aria-label="Scan schedule"
      actions={
        schedule !== null && !editing && !retired ? (
          <GatedButton
            variant="secondary"
            size="sm"
            allowed={canSchedule}
            tooltip={ScanningMessages.launchPermissionDenied}
            onBlockedPress={() => postureRef.send({ type: "schedule.editRequested" })}
            onPress={() => postureRef.send({ type: "schedule.editRequested" })}
          >
            Edit
          </GatedButton>
        ) : undefined
      }
    >
      {loading ? (
        <LoadingBox label="Loading the scan schedule" />
      ) : failed || schedule === null ? (
        <ErrorBox
          title={PostureMessages.loadScheduleFailed}
          message={error ?? PostureMessages.loadScheduleFailed}
          actions={
            <Button variant="secondary" size="sm" onPress={() => postureRef.send({ type: "schedule.retryRequested" })}>
              Retry
            </Button>
          }
        />
      ) : editing && draft !== null ? (
        <ScheduleEditor postureRef={postureRef} schedule={schedule} draft={draft} />
      ) : (
        <>
          {retired ? <p className={shared.muted}>{OrganizationMessages.memberRetiredLine}</p> : null}
          <dl className={shared.facts}>
            <Fact label="Schedule">{scheduleSummary(schedule)}</Fact>
            <Fact label="Next run">{schedule.next_run_at === null ? "—" : formatDateTimeIn(schedule.next_run_at, schedule.timezone)}</Fact>
            <Fact label="Last scheduled run">{schedule.last_run_at === null ? "—" : formatDateTimeIn(schedule.last_run_at, schedule.timezone)}</Fact>
            <Fact label="Regions">{listLabel(schedule.regions, "All enabled regions")}</Fact>
            <Fact label="Services">
              {schedule.services === null
                ? "All services"
                : schedule.services.map((k) => schedule.available_services.find((s) => s.key === k)?.name ?? k).join(", ")}
            </Fact>
            {schedule.last_error === null ? null : <Fact label="Last skipped run">{schedule.last_error}</Fact>}
          </dl>
        </>
      )}
    </Card>
  )
}

function MuteRulesCard({ postureRef }: { readonly postureRef: PostureRef }) {
  const rules = useSelector(postureRef, (s) => s.context.rules)
  const loading = useSelector(postureRef, (s) => s.matches({ rules: "loading" }))
  const failed = useSelector(postureRef, (s) => s.matches({ rules: "failed" }))
  const deletingId = useSelector(postureRef, (s) => (s.matches({ rules: "deleting" }) ? s.context.deletingId : null))
  const canMute = useSelector(postureRef, (s) => s.context.viewer?.canRemediate === true)
  const error = useSelector(postureRef, (s) => s.context.rulesError)
  return (
    <Card
      title="Mute rules"
      level={2}
      aria-label="Mute rules"
      description="Accepted risks: muted resources do not count as failed."
      actions={
        <GatedButton
          variant="secondary"
          size="sm"
          allowed={canMute}
          tooltip={PostureMessages.mutePermissionDenied}
          onBlockedPress={() => postureRef.send({ type: "rule.addRequested", today: localToday() })}
          onPress={() => postureRef.send({ type: "rule.addRequested", today: localToday() })}
        >
          Add mute rule
        </GatedButton>
      }
    >
      {loading ? (
        <LoadingBox label="Loading mute rules" />
      ) : failed ? (
        <ErrorBox
          title={PostureMessages.loadRulesFailed}
          message={error ?? PostureMessages.loadRulesFailed}
          actions={
            <Button variant="secondary" size="sm" onPress={() => postureRef.send({ type: "rules.reloadRequested" })}>
              Retry
            </Button>
          }
        />
      ) : rules.length === 0 ? (
        <p className={shared.muted}>No mute rules. Mute a failing resource or a whole check from its finding.</p>
      ) : (
        <ul className={shared.cardList} aria-label="Mute rules">
          {rules.map((r) => (
            <li key={r.id} className={shared.itemCard}>
              <div className={shared.itemCardHeader}>
                <div className={shared.titles}>
                  <strong className={shared.mono}>{describeMuteScope(r)}</strong>
                  <span>{r.reason}</span>
                  <span className={shared.subtle}>
                    {`By ${r.updated_by ?? r.created_by ?? "a former member"} · ${
                      r.expires_at === null ? "No expiry" : `${r.active ? "Expires" : "Expired"} ${formatDateTime(r.expires_at)}`
                    }`}
                  </span>
                </div>
                <div className={shared.actions}>
                  {r.active ? null : <Badge tone="neutral">Expired</Badge>}
                  <GatedButton
                    variant="ghost"
                    size="sm"
                    allowed={canMute}
                    tooltip={PostureMessages.mutePermissionDenied}
                    onBlockedPress={() => postureRef.send({ type: "rule.editRequested", id: r.id, today: localToday() })}
                    onPress={() => postureRef.send({ type: "rule.editRequested", id: r.id, today: localToday() })}
                  >
                    Edit
                  </GatedButton>
                  <GatedButton
                    variant="ghost"
                    size="sm"
                    allowed={canMute}
                    tooltip={PostureMessages.mutePermissionDenied}
                    isDisabled={deletingId !== null}
                    onBlockedPress={() => postureRef.send({ type: "rule.deleteRequested", id: r.id })}
                    onPress={() => postureRef.send({ type: "rule.deleteRequested", id: r.id })}
                  >
                    {deletingId === r.id ? "Deleting…" : "Delete"}
                  </GatedButton>
                </div>
              </div>
            </li>
          ))}
        </ul>
      )}
    </Card>
  )
}

/** `retired`: the account page's (issue 31); its schedule is then shown without Edit. */
export function AccountPosture({ accountId, accountName, retired = false }: { readonly accountId: AccountId; readonly accountName: string; readonly retired?: boolean }) {
  const logic = useAccountPostureLogic()
  const options = useScanActorOptions()
  const postureRef = useActorRef(logic, { ...options, input: { accountId, retired } })
  const form = useSelector(postureRef, (s) => s.children["muteRuleForm"] as MuteRuleFormRef | undefined)
  return (
    <>
      <ScheduleCard postureRef={postureRef} />
      <MuteRulesCard postureRef={postureRef} />
      {form === undefined ? null : <MuteRuleFormDialog dialogRef={form} accountName={accountName} />}
    </>
  )
}
