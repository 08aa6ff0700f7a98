/** The 404 page of access §2 and scanning §2: 'Page Not Found', the explanation, and a 'Return Home' link to /. */
import { OtherMessages } from "../contracts/messages.ts"
import { HomeIcon } from "./ui/icons.tsx"
import { Link } from "./ui/link.tsx"
import * as css from "./not-found.css.ts"

export function NotFoundView() {
  return (
    <div className={css.page}>
      <div className={css.panel}>
        <p className={css.code} aria-hidden="true">
          404
        </p>
        <h1 className={css.title}>{OtherMessages.pageNotFoundTitle}</h1>
        <p className={css.body}>{OtherMessages.pageNotFoundBody}</p>
        <Link href="/" variant="button">
          <HomeIcon size={18} />
          Return Home
        </Link>
      </div>
    </div>
  )
}
