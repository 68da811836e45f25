/** The function table the compiler checks `select` expressions against: the interpreter's own. */
export { FUNCTION_SIGNATURES, type FunctionParam } from "./functions.ts";
