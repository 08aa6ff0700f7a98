/**
 * The scanning area's server texts live in src/contracts/messages.ts (`ScanningServerMessages`); this name stays for the
 * modules that still import it from here.
 */
export { ScanningServerMessages as ScanningTexts } from "../../src/contracts/messages.ts"
