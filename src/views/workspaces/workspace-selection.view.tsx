/**
 * /workspace-selection (access §2 "Screens: Workspace selection"): renders `workspaceSelectionMachine`. A card grid of
 * the user's workspaces ('Owner' marker or role, 'New' badge for 7 days, members, last opened), a search box only
 * above 3 workspaces, the empty state 'No workspaces available', the error state 'Failed to load workspaces' with
 * 'Try again', and 'Failed to select workspace' above the grid. An invitation token in the route state is accepted on
 * arrival (the machine shows the toasts).
 */
import { useMemo } from "react"
import { useActorRef, useSelector } from "@xstate/react"
import { Button as AriaButton } from "react-aria-components"
import type { ActorRefFrom } from "xstate"
import { Dates } from "../../contracts/constants.ts"
import { OtherMessages } from "../../contracts/messages.ts"
import type { NavigateParams } from "../../machines/auth-effects.ts"
import type { ToastRequest } from "../../machines/screen-environment.ts"
import {
  selectShowsSearch,
  selectWorkspaceCards,
  workspaceSelectionImplementations,
  workspaceSelectionMachine,
  type WorkspaceCard,
} from "../../machines/workspace-selection.machine.ts"
import { useToasts } from "../app-actors.tsx"
import { useNavigateAction, useRouteState, useScreenActorOptions } from "../access/auth-effects-context.tsx"
import { PRODUCT_NAME } from "../layouts/auth-layout.tsx"
import { BuildingIcon, CrownIcon, LogOutIcon, ShieldCheckIcon } from "../ui/icons.tsx"
import { AlertBox } from "../ui/alert-box.tsx"
import { Badge } from "../ui/badge.tsx"
import { Button } from "../ui/button.tsx"
import { Spinner } from "../ui/spinner.tsx"
import { TextField } from "../ui/text-field.tsx"
import { useWorkspaceSelectionEffects } from "./workspace-effects-context.tsx"
import * as css from "./workspace-selection.css.ts"

type SelectionRef = ActorRefFrom<typeof workspaceSelectionMachine>

/** Route state of /workspace-selection (access §2), read defensively: history state can hold anything. */
export const readWorkspaceSelectionState = (u: unknown): { invitationToken: string | null; workspaceId: number | null } => {
  if (typeof u !== "object" || u === null) return { invitationToken: null, workspaceId: null }
  const r = u as Record<string, unknown>
  const token = r["invitationToken"]
  const id = r["workspaceId"]
  return {
    invitationToken: typeof token === "string" && token.trim() !== "" ? token : null,
    workspaceId: typeof id === "number" && Number.isSafeInteger(id) && id > 0 ? id : null,
  }
}

const dateFormat = new Intl.DateTimeFormat("en-US", { dateStyle: "medium" })

/** Access §9: dates between 1900 and 2100, else 'N/A'. */
export const formatDate = (iso: string | null | undefined): string => {
  if (iso === null || iso === undefined) return Dates.fallback
  const t = Date.parse(iso)
  if (!Number.isFinite(t)) return Dates.fallback
  const year = new Date(t).getUTCFullYear()
  return year < Dates.minYear || year > Dates.maxYear ? Dates.fallback : dateFormat.format(t)
}

const members = (n: number): string => `${n} member${n === 1 ? "" : "s"}`

function WorkspaceCardButton({ actorRef, card }: { readonly actorRef: SelectionRef; readonly card: WorkspaceCard }) {
  const id = card.workspace.workspace_id
  const canSelect = useSelector(actorRef, (s) => s.can({ type: "workspace.selected", workspaceId: id }))
  const isSelecting = useSelector(
    actorRef,
    (s) => s.context.selectingWorkspaceId === id && (s.matches({ active: { ready: "switching" } }) || s.matches({ active: { ready: "refreshingUser" } }) || s.matches("selected")),
  )
  return (
    <li className={css.cardItem}>
      <AriaButton
        className={css.card}
        isDisabled={!canSelect}
        onPress={() => actorRef.send({ type: "workspace.selected", workspaceId: id })}
        data-highlighted={card.isHighlighted ? "" : undefined}
        data-selecting={isSelecting ? "" : undefined}
      >
        <span className={css.cardTop}>
          <span className={css.cardIcon}>
            <BuildingIcon size={22} />
          </span>
          <span className={css.cardTitles}>
            <span className={css.cardName}>{card.workspace.workspace_name}</span>
            <span className={css.badges}>
              {card.isOwner ? (
                <Badge tone="accent" emphasis>
                  <CrownIcon size={12} />
                  {card.roleLabel}
                </Badge>
              ) : card.roleLabel === null ? null : (
                <Badge tone="neutral">{card.roleLabel}</Badge>
              )}
              {card.isNew ? <Badge tone="success">New</Badge> : null}
              {card.isCurrent ? <Badge tone="neutral">Current</Badge> : null}
            </span>
          </span>
        </span>
        <span className={css.meta}>
          <span>{members(card.workspace.member_count)}</span>
          <span>
            {card.lastAccessedAt === null
              ? `Joined ${formatDate(card.workspace.joined_at)}`
              : `Last opened ${formatDate(card.lastAccessedAt)}`}
          </span>
        </span>
        {isSelecting ? <Spinner size="sm" className={css.selectingSpinner} aria-label="Opening workspace" /> : null}
      </AriaButton>
    </li>
  )
}

function WorkspaceGrid({ actorRef }: { readonly actorRef: SelectionRef }) {
  const cards = useSelector(actorRef, selectWorkspaceCards, (a, b) => a.length === b.length && a.every((c, i) => cardEqual(c, b[i])))
  const showsSearch = useSelector(actorRef, selectShowsSearch)
  const query = useSelector(actorRef, (s) => s.context.query)
  const selectionError = useSelector(actorRef, (s) => s.context.selectionError)
  return (
    <>
      {showsSearch ? (
        <TextField
          className={css.search}
          label="Search workspaces"
          type="search"
          placeholder="Search by name"
          value={query}
          onChange={(value) => actorRef.send({ type: "search.changed", query: value })}
        />
      ) : null}
      {selectionError === null ? null : <AlertBox tone="error">{selectionError}</AlertBox>}
      {cards.length === 0 ? (
        <div className={css.centred} role="status">
          <p className={css.centredTitle}>No workspaces match “{query.trim()}”</p>
          <p>Try another name.</p>
        </div>
      ) : (
        <ul className={css.grid} aria-label="Your workspaces">
          {cards.map((card) => (
            <WorkspaceCardButton key={card.workspace.workspace_id} actorRef={actorRef} card={card} />
          ))}
        </ul>
      )}
    </>
  )
}

const cardEqual = (a: WorkspaceCard, b: WorkspaceCard | undefined): boolean =>
  b !== undefined &&
  a.workspace === b.workspace &&
  a.isNew === b.isNew &&
  a.isHighlighted === b.isHighlighted &&
  a.lastAccessedAt === b.lastAccessedAt &&
  a.isCurrent === b.isCurrent

function LoadingCards({ label }: { readonly label: string }) {
  return (
    <div role="status" aria-busy="true" aria-label={label}>
      <ul className={css.grid} aria-hidden="true">
        {[0, 1, 2].map((i) => (
          <li key={i} className={css.skeletonCard} />
        ))}
      </ul>
    </div>
  )
}

export function WorkspaceSelectionView() {
  const effects = useWorkspaceSelectionEffects()
  const navigateAction = useNavigateAction()
  const toasts = useToasts()
  const routeState = readWorkspaceSelectionState(useRouteState())
  const logic = useMemo(
    () =>
      workspaceSelectionMachine.provide(
        workspaceSelectionImplementations(effects, {
          navigate: (params: NavigateParams) => navigateAction(undefined, params),
          notify: ({ kind, message, durationMs }: ToastRequest) => toasts.show(kind, message, durationMs),
        }),
      ),
    [effects, navigateAction, toasts],
  )
  const actorRef = useActorRef(
    logic,
    useScreenActorOptions({
      invitationToken: routeState.invitationToken,
      workspaceId: routeState.workspaceId,
      store: effects.readWorkspaceStore(),
      now: effects.now,
    }),
  )
  const view = useSelector(actorRef, (s) =>
    s.matches({ active: "acceptingInvitation" })
      ? "accepting"
      : s.matches({ active: "loading" }) || s.matches({ active: "arriving" })
        ? "loading"
        : s.matches({ active: "failed" })
          ? "failed"
          : s.matches({ active: "empty" })
            ? "empty"
            : "ready",
  )
  const loadError = useSelector(actorRef, (s) => s.context.loadError)
  const canSignOut = useSelector(actorRef, (s) => s.can({ type: "signOut.requested" }))

  return (
    <div className={css.shell}>
      <header className={css.topBar}>
        <span className={css.brand}>
          <span className={css.brandMark}>
            <ShieldCheckIcon size={20} />
          </span>
          {PRODUCT_NAME}
        </span>
        <Button
          variant="ghost"
          className={css.signOut}
          isDisabled={!canSignOut}
          onPress={() => actorRef.send({ type: "signOut.requested" })}
        >
          <LogOutIcon />
          Sign out
        </Button>
      </header>
      <main className={css.page}>
        <div className={css.heading}>
          <h1 className={css.title}>Select a workspace</h1>
          <p className={css.subtitle}>Choose the workspace you want to work in.</p>
        </div>
        {view === "accepting" ? (
          <LoadingCards label="Accepting your invitation..." />
        ) : view === "loading" ? (
          <LoadingCards label="Loading workspaces..." />
        ) : view === "failed" ? (
          <AlertBox
            tone="error"
            title={OtherMessages.loadWorkspacesFailed}
            action={
              <Button variant="secondary" onPress={() => actorRef.send({ type: "workspaces.retried" })}>
                Try again
              </Button>
            }
          >
            {loadError !== null && loadError !== OtherMessages.loadWorkspacesFailed ? loadError : undefined}
          </AlertBox>
        ) : view === "empty" ? (
          <div className={css.centred} role="status">
            <BuildingIcon size={32} />
            <p className={css.centredTitle}>{OtherMessages.noWorkspaces}</p>
            <p>Ask a workspace owner to invite you, then open the link in the invitation email.</p>
          </div>
        ) : (
          <WorkspaceGrid actorRef={actorRef} />
        )}
      </main>
    </div>
  )
}
