import { Database, sql } from '../../../src/data/database';
import { describeIf } from '../../support/skip';
import { backend, freshDatabase, type TestDatabase } from '../../support/test-app';

/**
 * The embedded database runs each statement by name (src/data/pglite-statements.ts): parsed and described once,
 * then only bound and executed. What a caller sees must be what PGlite's own `query` gave: the same values back,
 * the same errors, and nothing left broken by an error or a rollback.
 */
describeIf(backend === 'pglite', "the embedded database's own statement path (on PostgreSQL, node-postgres prepares by name)")(
  'Statements on the embedded database',
  () => {
    let database: TestDatabase;
    let db: Database;

    beforeAll(async () => {
      database = await freshDatabase();
      db = new Database(database.db);
      await database.db.raw('create table t_named (id int primary key, label text not null, doc jsonb, at timestamptz, tags text[], n bigint)');
    });
    afterAll(() => database.drop());

    const insert = sql('insert into t_named (id, label, doc, at, tags, n) values ($1, $2, $3, $4, $5, $6) returning id, label, doc, at, tags, n');
    const prepared = () =>
      db.query<{ name: string; statement: string }>(sql('select name, statement from pg_prepared_statements where name = $1'), [insert.name]);

    it('prepares a statement once, and gives back each type as the query path did', async () => {
      const at = new Date('2026-11-30T06:00:00.123Z');
      const [first] = await db.query(insert, [1, 'one', { seats: [1, 2], child: null }, at, ['a', 'b,c'], '9007199254740993']);
      expect(first).toEqual({ id: 1, label: 'one', doc: { seats: [1, 2], child: null }, at, tags: ['a', 'b,c'], n: '9007199254740993' });
      const [second] = await db.query(insert, [2, 'two', null, null, null, null]);
      expect(second).toEqual({ id: 2, label: 'two', doc: null, at: null, tags: null, n: null });
      expect(await prepared()).toEqual([{ name: insert.name, statement: insert.text }]);
      // A statement without rows answers an empty list.
      expect(await db.query(sql('update t_named set label = $1 where id = $2'), ['uno', 1])).toEqual([]);
    });

    it('fails a statement with the database error, and runs it again afterwards', async () => {
      await expect(db.query(insert, [1, 'again', null, null, null, null])).rejects.toMatchObject({ code: '23505', constraint: 't_named_pkey' });
      await expect(db.query(insert, [3, null, null, null, null, null])).rejects.toMatchObject({ code: '23502' });
      await expect(db.query(sql('select nothing from nowhere where x = $1'), [1])).rejects.toMatchObject({ code: '42P01' });
      const [row] = await db.query(insert, [3, 'three', null, null, null, null]);
      expect(row).toMatchObject({ id: 3, label: 'three' });
    });

    it('keeps a statement prepared in a transaction that rolled back, and another handle on the database uses it', async () => {
      const count = sql('select count(*)::int as n from t_named where label like $1');
      await expect(
        db.transaction(async (tx) => {
          await tx.query(insert, [4, 'four', null, null, null, null]);
          expect(await tx.query(count, ['f%'])).toEqual([{ n: 1 }]);
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      expect(await db.query(count, ['f%'])).toEqual([{ n: 0 }]);
      const other = new Database(database.db);
      expect(await other.query(count, ['t%'])).toEqual([{ n: 2 }]);
      expect(await other.query(insert, [4, 'four', null, null, null, null])).toHaveLength(1);
    });

    it('fails the rest of an aborted transaction as PostgreSQL does, then works after its rollback', async () => {
      const tx = await db.begin();
      await expect(tx.query(insert, [1, 'dup', null, null, null, null])).rejects.toMatchObject({ code: '23505' });
      await expect(tx.query(insert, [5, 'five', null, null, null, null])).rejects.toMatchObject({ code: '25P02' });
      await tx.rollback();
      expect(await db.query(insert, [5, 'five', null, null, null, null])).toHaveLength(1);
    });
  },
);
