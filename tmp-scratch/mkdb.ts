import { sql } from 'kysely';
import { openDatabase } from '/work/main/src/db/client.ts';
import { migrate } from '/work/main/src/db/migrate.ts';
import { distributionStatements, placeTables, readSchema } from '/work/main/src/db/distribution.ts';
import { newCitusDatabase } from '/work/main/test/citus-cluster.ts';
const cluster = await newCitusDatabase(process.env.CITUS_URL as string);
const database = await openDatabase({ url: cluster.url });
await migrate(database);
const statements = distributionStatements(await readSchema(database.db), cluster.name);
await database.db.transaction().execute(async (trx) => {
  await sql.raw(`SET LOCAL citus.shard_count TO 4`).execute(trx);
  await placeTables(trx, statements);
});
await database.close();
console.log(cluster.url);
