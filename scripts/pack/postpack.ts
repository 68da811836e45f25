/** `postpack`: removes what prepack generated, so the workspace runs from its sources again. */
import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";

const PKG = resolve(import.meta.dirname, "..", "..", "packages", "compiler");
for (const dir of ["dist", "runtime", "docs", "schema"]) await rm(join(PKG, dir), { recursive: true, force: true });
