/**
 * react-aria's live announcer (`[data-live-announcer]`, shared by every screen) announces a pending button's start and
 * end as `<div role="img" aria-labelledby="<button id> <spinner id>">`: a reference, read when the node is added. The
 * node stays for seven seconds, by which time the spinner (and often the button, when a dialog closed) is gone, so the
 * region holds a role="img" naming elements that no longer exist — an invalid reference to assistive technology and to
 * axe. `keepAnnouncementsPlain` rewrites each such node, as it is added, into the plain text it named at that moment
 * (the referenced elements' aria-label or text): the same words are announced, and nothing stale stays behind.
 */

const REGION = "[data-live-announcer]"

/** What an element is called: its aria-label, else its text. */
const nameOf = (el: Element): string => (el.getAttribute("aria-label") ?? el.textContent ?? "").replace(/\s+/g, " ").trim()

/** Rewrites one announcement node into plain text (no role, no reference). */
export const flattenAnnouncement = (node: Element, doc: Document): void => {
  const ids = (node.getAttribute("aria-labelledby") ?? "").split(/\s+/).filter((id) => id !== "")
  const text = ids
    .map((id) => doc.getElementById(id))
    .filter((el): el is HTMLElement => el !== null)
    .map(nameOf)
    .filter((t) => t !== "")
    .join(", ")
  node.removeAttribute("role")
  node.removeAttribute("aria-labelledby")
  node.textContent = text
}

const flattenWithin = (root: Node, doc: Document): void => {
  if (!(root instanceof doc.defaultView!.Element)) return
  const element = root as Element
  if (element.hasAttribute("aria-labelledby") && element.closest(REGION) !== null) flattenAnnouncement(element, doc)
  for (const inner of element.querySelectorAll(`${REGION} [aria-labelledby]`)) flattenAnnouncement(inner, doc)
}

/** Watches the document for announcements and keeps them plain; returns the function that stops watching. */
export const keepAnnouncementsPlain = (doc: Document): (() => void) => {
  const View = doc.defaultView
  if (View === null || typeof View.MutationObserver !== "function") return () => {}
  const observer = new View.MutationObserver((records) => {
    for (const record of records) for (const added of record.addedNodes) flattenWithin(added, doc)
  })
  observer.observe(doc.body, { childList: true, subtree: true })
  return () => observer.disconnect()
}
