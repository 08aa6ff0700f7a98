/**
 * Previous / Next under a table of the fleet page (the members, the compliance requirements): the machine's page (its
 * position, and which page each button asks for) rendered, each press sent as the page asked for.
 */
import type { TablePage } from "../../machines/fleet-compliance.machine.ts"
import { Button } from "../ui/button.tsx"
import * as shared from "../scanning/scanning.css.ts"
import * as css from "./fleet.css.ts"

const count = (n: number) => n.toLocaleString("en-US")

export function FleetPager({ label, noun, page, onPage }: {
  readonly label: string
  readonly noun: string
  readonly page: TablePage
  readonly onPage: (page: number) => void
}) {
  if (page.previous === null && page.next === null) return null
  return (
    <div className={css.pager} role="group" aria-label={label}>
      <Button variant="secondary" size="sm" isDisabled={page.previous === null} onPress={() => page.previous !== null && onPage(page.previous)}>
        Previous
      </Button>
      <span className={shared.subtle}>{`${noun} ${count(page.first)}–${count(page.last)} of ${count(page.total)} · page ${page.page} of ${page.pageCount}`}</span>
      <Button variant="secondary" size="sm" isDisabled={page.next === null} onPress={() => page.next !== null && onPage(page.next)}>
        Next
      </Button>
    </div>
  )
}
