/**
 * Text from outside (file names, arguments) on its way to a terminal: control characters would reach it raw
 * (an ESC sequence rewrites the screen, a newline forges an output line), so they are shown escaped. One
 * function for every message, the diagnostics formatter's `oneLine`.
 */
export { oneLine as printable } from "../diagnostics/diagnostic.ts";
