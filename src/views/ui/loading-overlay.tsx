/**
 * Global loading overlay (loading-overlay machine): while visible it covers the app with the message and either a
 * spinner or, when progress is known, a determinate progress bar. The machine clears it after 30 s at the latest.
 */
import { ProgressBar } from "react-aria-components"
import { useLoadingOverlayState } from "../app-actors.tsx"
import { Spinner } from "./spinner.tsx"
import * as css from "./loading-overlay.css.ts"

export function LoadingOverlay() {
  const { isVisible, message, progress } = useLoadingOverlayState()
  if (!isVisible) return null
  return (
    <div className={css.backdrop} data-testid="loading-overlay" aria-busy="true">
      <div className={css.panel} role="status" aria-live="polite">
        {progress === undefined ? (
          <>
            <Spinner size="lg" aria-label={message === "" ? "Loading" : message} />
            {message === "" ? null : <p className={css.message}>{message}</p>}
          </>
        ) : (
          <ProgressBar value={progress} aria-label={message === "" ? "Progress" : message} className={css.progress}>
            {({ percentage, valueText }) => (
              <>
                {message === "" ? null : <p className={css.message}>{message}</p>}
                <div className={css.track}>
                  <div className={css.fill} style={{ width: `${percentage ?? 0}%` }} />
                </div>
                <span className={css.percent}>{valueText}</span>
              </>
            )}
          </ProgressBar>
        )}
      </div>
    </div>
  )
}
