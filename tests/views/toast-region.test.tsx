// @vitest-environment happy-dom
import { act, cleanup, fireEvent, screen, within } from "@testing-library/react"
import { afterEach, describe, expect, it } from "vitest"
import { useLoadingOverlay, useToasts } from "../../src/views/app-actors.tsx"
import { renderApp } from "./render-app.tsx"

afterEach(cleanup)

function ToastButtons() {
  const toasts = useToasts()
  const overlay = useLoadingOverlay()
  return (
    <>
      <button onClick={() => toasts.error("Failed to load team members")}>error</button>
      <button onClick={() => toasts.success("Team member added successfully")}>success</button>
      <button onClick={() => overlay.show("Launching scan", 40)}>overlay</button>
    </>
  )
}

describe("toast region", () => {
  it("renders a shown toast: errors as alerts, successes as status messages", () => {
    renderApp("/", { children: <ToastButtons /> })
    const region = screen.getByRole("region", { name: "Notifications" })
    fireEvent.click(screen.getByText("error"))
    fireEvent.click(screen.getByText("success"))
    expect(within(region).getByRole("alert").textContent).toContain("Failed to load team members")
    expect(within(region).getByRole("status").textContent).toContain("Team member added successfully")
  })

  it("removes a success toast after 2 s and an error toast after 4 s", () => {
    const { clock } = renderApp("/", { children: <ToastButtons /> })
    fireEvent.click(screen.getByText("error"))
    fireEvent.click(screen.getByText("success"))
    act(() => clock.increment(2000))
    expect(screen.queryByText("Team member added successfully")).toBeNull()
    expect(screen.getByText("Failed to load team members")).toBeTruthy()
    act(() => clock.increment(2000))
    expect(screen.queryByText("Failed to load team members")).toBeNull()
  })

  it("dismisses a toast with its close button", () => {
    renderApp("/", { children: <ToastButtons /> })
    fireEvent.click(screen.getByText("error"))
    fireEvent.click(screen.getByRole("button", { name: "Dismiss notification" }))
    expect(screen.queryByRole("alert")).toBeNull()
  })
})

describe("loading overlay", () => {
  it("shows the message and progress, and clears itself after 30 s", () => {
    const { clock } = renderApp("/", { children: <ToastButtons /> })
    fireEvent.click(screen.getByText("overlay"))
    const bar = screen.getByRole("progressbar", { name: "Launching scan" })
    expect(bar.getAttribute("aria-valuenow")).toBe("40")
    expect(screen.getByText("Launching scan")).toBeTruthy()
    act(() => clock.increment(30_000))
    expect(screen.queryByTestId("loading-overlay")).toBeNull()
  })
})
