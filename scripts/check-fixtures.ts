/**
 * CI gate for fixtures/: pairing, schema, names, secrets (rules in
 * conformance/src/harness/fixture-check.ts).
 *
 *   npx tsx scripts/check-fixtures.ts [--write-schema]
 *
 * `--write-schema` regenerates fixtures/schema/expected.schema.json from the zod schema first.
 * Exits 1 and lists every problem when there are any.
 */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  checkFixtures,
  expectedJsonSchema,
  SCHEMA_PATH,
} from '../conformance/src/harness/fixture-check.ts'
import { fixturesRoot } from '../conformance/src/harness/paths.ts'

if (process.argv.includes('--write-schema')) {
  await writeFile(join(fixturesRoot, SCHEMA_PATH), expectedJsonSchema())
  console.log(`wrote fixtures/${SCHEMA_PATH}`)
}
const problems = await checkFixtures()
for (const problem of problems) console.error(`fixtures: ${problem}`)
if (problems.length > 0) {
  console.error(`${problems.length} problem(s) in fixtures/`)
  process.exitCode = 1
} else {
  console.log('fixtures: ok')
}
