import Foundation
import PostgresNIO

/// The shared schema, changed only by appending a migration here (never by editing one that shipped).
///
/// `apply` runs in one transaction under a transaction-scoped advisory lock, so when several instances start at
/// once the first applies what is missing and the others wait, then find nothing left to do: each migration runs
/// exactly once. `places_schema_migrations` records what ran.
enum PostgresMigrations {
    struct Migration: Sendable {
        var version: Int
        var name: String
        var statements: [String]
    }

    /// An arbitrary constant naming "the places migrations" among advisory locks.
    static let lockKey: Int64 = 0x706C_6163_6573_4D31  // "placesM1"

    static let all: [Migration] = [
        Migration(version: 1, name: "lookup cache, budget ledger, spots and visits", statements: lookupCache + budgetLedger + spots + imports),
        Migration(version: 2, name: "budget ledger group commit", statements: ledgerBatch),
    ]

    static func apply(_ database: SharedDatabase) async throws {
        let logger = database.logger
        // Within the request timeout, waiting included: if another instance's migration takes longer, this request
        // fails as "storage unavailable" and the next one tries again.
        try await database.withoutSchemaCheck { connection in
            try await connection.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
                try await connection.query("""
                    CREATE TABLE IF NOT EXISTS places_schema_migrations (
                        version integer PRIMARY KEY,
                        name text NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now())
                    """, logger: logger)
                var applied = Set<Int>()
                for try await version in try await connection.query("SELECT version FROM places_schema_migrations",
                                                                     logger: logger).decode(Int.self) {
                    applied.insert(version)
                }
                for migration in all where !applied.contains(migration.version) {
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query("""
                        INSERT INTO places_schema_migrations (version, name) VALUES (\(migration.version), \(migration.name))
                        """, logger: logger)
                }
            }
        }
    }

    // MARK: v1

    /// Which SQLite files `places storage migrate` has copied charges from (charges have no natural key).
    static let imports = [
        """
        CREATE TABLE places_import (
            source text NOT NULL,
            what text NOT NULL,
            copied_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (source, what))
        """,
    ]

    /// The lookup cache: the same columns as the SQLite cache; times are seconds since 1970 so an injected clock works.
    static let lookupCache = [
        """
        CREATE TABLE lookup_cache_entry (
            key text PRIMARY KEY,
            kind text NOT NULL CHECK (kind IN ('answer', 'negative')),
            payload bytea NOT NULL,
            providers text[] NOT NULL,
            stored_at double precision NOT NULL,
            expires_at double precision NOT NULL,
            last_used_at double precision NOT NULL,
            size integer NOT NULL)
        """,
        "CREATE INDEX lookup_cache_entry_lru ON lookup_cache_entry (last_used_at)",
        "CREATE INDEX lookup_cache_entry_expiry ON lookup_cache_entry (expires_at)",
        "CREATE INDEX lookup_cache_entry_providers ON lookup_cache_entry USING gin (providers)",
    ]

    /// The budget ledger. Charges as in SQLite, plus running totals per window (`budget_window`) and calls per SKU and
    /// month (`budget_sku_calls`) so a reservation checks its limits without summing the month's charges. Reserving
    /// and refunding are functions that take one advisory lock: one round trip each, atomic across every instance.
    static let budgetLedger: [String] = [
        """
        CREATE TABLE budget_charge (
            id bigserial PRIMARY KEY,
            provider text NOT NULL,
            sku text NOT NULL,
            cost bigint NOT NULL,
            list_price bigint NOT NULL,
            state text NOT NULL CHECK (state IN ('reserved', 'settled', 'refunded')),
            day text NOT NULL,
            month text NOT NULL,
            created_at double precision NOT NULL)
        """,
        "CREATE INDEX budget_charge_month ON budget_charge (month, provider)",
        "CREATE INDEX budget_charge_day ON budget_charge (day, provider)",
        "CREATE INDEX budget_charge_dangling ON budget_charge (created_at) WHERE state = 'reserved'",
        """
        CREATE TABLE budget_limit (
            scope text NOT NULL,
            period text NOT NULL CHECK (period IN ('day', 'month')),
            amount bigint,
            PRIMARY KEY (scope, period))
        """,
        """
        CREATE TABLE budget_window (
            scope text NOT NULL,
            period text NOT NULL,
            key text NOT NULL,
            spent bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (scope, period, key))
        """,
        """
        CREATE TABLE budget_sku_calls (
            sku text NOT NULL,
            month text NOT NULL,
            calls integer NOT NULL DEFAULT 0,
            PRIMARY KEY (sku, month))
        """,
        """
        CREATE FUNCTION places_reserve(
            p_provider text, p_sku text, p_cost bigint, p_day text, p_month text, p_now double precision,
            p_allowance integer, p_provider_day bigint, p_provider_month bigint, p_overall_day bigint, p_overall_month bigint)
        RETURNS TABLE (charge_id bigint, charged bigint, denied_scope text, denied_period text, denied_limit bigint, denied_spent bigint)
        LANGUAGE plpgsql AS $$
        DECLARE
            v_cost bigint := p_cost;
            v_calls integer;
            v_limit bigint;
            v_spent bigint;
            v_id bigint;
            w record;
        BEGIN
            PERFORM pg_advisory_xact_lock(\(PostgresBudgetLedger.lockKey));
            IF p_allowance > 0 THEN
                SELECT calls INTO v_calls FROM budget_sku_calls WHERE sku = p_sku AND month = p_month;
                IF COALESCE(v_calls, 0) < p_allowance THEN v_cost := 0; END IF;
            END IF;
            IF v_cost > 0 THEN
                FOR w IN SELECT * FROM (VALUES (1, p_provider, 'day', p_day, p_provider_day),
                                               (2, p_provider, 'month', p_month, p_provider_month),
                                               (3, '*', 'day', p_day, p_overall_day),
                                               (4, '*', 'month', p_month, p_overall_month)) AS v(ord, scope, period, key, configured)
                         ORDER BY ord LOOP
                    SELECT l.amount INTO v_limit FROM budget_limit l WHERE l.scope = w.scope AND l.period = w.period;
                    IF NOT FOUND THEN v_limit := w.configured; END IF;
                    CONTINUE WHEN v_limit IS NULL;
                    SELECT b.spent INTO v_spent FROM budget_window b WHERE b.scope = w.scope AND b.period = w.period AND b.key = w.key;
                    v_spent := COALESCE(v_spent, 0);
                    IF v_spent + v_cost > v_limit THEN
                        RETURN QUERY SELECT NULL::bigint, NULL::bigint, w.scope::text, w.period::text, v_limit, v_spent;
                        RETURN;
                    END IF;
                END LOOP;
            END IF;
            INSERT INTO budget_charge (provider, sku, cost, list_price, state, day, month, created_at)
            VALUES (p_provider, p_sku, v_cost, p_cost, 'reserved', p_day, p_month, p_now) RETURNING id INTO v_id;
            INSERT INTO budget_window AS b (scope, period, key, spent)
            VALUES (p_provider, 'day', p_day, v_cost), (p_provider, 'month', p_month, v_cost), ('*', 'day', p_day, v_cost), ('*', 'month', p_month, v_cost)
            ON CONFLICT (scope, period, key) DO UPDATE SET spent = b.spent + EXCLUDED.spent;
            INSERT INTO budget_sku_calls AS c (sku, month, calls) VALUES (p_sku, p_month, 1)
            ON CONFLICT (sku, month) DO UPDATE SET calls = c.calls + 1;
            RETURN QUERY SELECT v_id, v_cost, NULL::text, NULL::text, NULL::bigint, NULL::bigint;
        END
        $$
        """,
        """
        CREATE FUNCTION places_refund(p_id bigint) RETURNS boolean LANGUAGE plpgsql AS $$
        DECLARE
            c budget_charge%ROWTYPE;
        BEGIN
            PERFORM pg_advisory_xact_lock(\(PostgresBudgetLedger.lockKey));
            UPDATE budget_charge SET state = 'refunded' WHERE id = p_id AND state <> 'refunded' RETURNING * INTO c;
            IF NOT FOUND THEN RETURN false; END IF;
            UPDATE budget_window SET spent = spent - c.cost
            WHERE scope IN (c.provider, '*') AND ((period = 'day' AND key = c.day) OR (period = 'month' AND key = c.month));
            UPDATE budget_sku_calls SET calls = calls - 1 WHERE sku = c.sku AND month = c.month;
            RETURN true;
        END
        $$
        """,
    ]

    // MARK: v2

    /// Group commit (``PostgresBudgetLedger``): one call runs a batch of reserves, settles and refunds in the order
    /// given, under the budget lock taken once, in the caller's one transaction. Each write goes through the same
    /// functions and statement as when it runs alone (`places_reserve`, `places_refund`; re-taking an advisory lock
    /// the transaction holds is a no-op), so a batch decides exactly as the same writes one after another would.
    /// Arrays carry one element per write; a limit of -1 means "none configured" (arrays of NULLs do not bind).
    /// Returns one row per reserve: its 1-based position in the batch and `places_reserve`'s answer.
    static let ledgerBatch = [
        """
        CREATE FUNCTION places_ledger_batch(
            p_op text[], p_charge bigint[], p_provider text[], p_sku text[], p_cost bigint[], p_day text[], p_month text[],
            p_now double precision[], p_allowance integer[], p_provider_day bigint[], p_provider_month bigint[],
            p_overall_day bigint[], p_overall_month bigint[])
        RETURNS TABLE (ord integer, charge_id bigint, charged bigint, denied_scope text, denied_period text, denied_limit bigint, denied_spent bigint)
        LANGUAGE plpgsql AS $$
        BEGIN
            PERFORM pg_advisory_xact_lock(\(PostgresBudgetLedger.lockKey));
            FOR i IN 1 .. COALESCE(array_length(p_op, 1), 0) LOOP
                IF p_op[i] = 'settle' THEN
                    UPDATE budget_charge SET state = 'settled' WHERE id = p_charge[i] AND state = 'reserved';
                ELSIF p_op[i] = 'refund' THEN
                    PERFORM places_refund(p_charge[i]);
                ELSE
                    RETURN QUERY SELECT i, r.charge_id, r.charged, r.denied_scope, r.denied_period, r.denied_limit, r.denied_spent
                    FROM places_reserve(p_provider[i], p_sku[i], p_cost[i], p_day[i], p_month[i], p_now[i], p_allowance[i],
                                        NULLIF(p_provider_day[i], -1), NULLIF(p_provider_month[i], -1),
                                        NULLIF(p_overall_day[i], -1), NULLIF(p_overall_month[i], -1)) AS r;
                END IF;
            END LOOP;
        END
        $$
        """,
    ]

    /// Spots and visits. The point index is GiST on `point(lon, lat)` (plain PostgreSQL, no PostGIS): a bounding box
    /// picks candidates with `<@`, the haversine distance decides, as the SQLite store's R*Tree does.
    static let spots = [
        """
        CREATE TABLE spot (
            rowid bigserial PRIMARY KEY,
            id text NOT NULL UNIQUE,
            name text NOT NULL,
            folded_name text NOT NULL,
            lat double precision NOT NULL,
            lon double precision NOT NULL,
            category text,
            tags text NOT NULL DEFAULT '[]',
            notes text,
            rating text CHECK (rating IN ('like', 'dislike')),
            address text,
            url text,
            created_at double precision NOT NULL,
            updated_at double precision NOT NULL,
            place_ids text NOT NULL DEFAULT '[]',
            snapshot text,
            snapshot_fetched_at double precision,
            snapshot_source text)
        """,
        "CREATE INDEX spot_category ON spot (category)",
        "CREATE INDEX spot_updated ON spot (updated_at)",
        "CREATE INDEX spot_id_prefix ON spot (id text_pattern_ops)",
        "CREATE INDEX spot_point ON spot USING gist (point(lon, lat))",
        """
        CREATE TABLE spot_place (
            spot_rowid bigint NOT NULL REFERENCES spot (rowid) ON DELETE CASCADE,
            place_id text NOT NULL,
            PRIMARY KEY (place_id, spot_rowid))
        """,
        "CREATE INDEX spot_place_spot ON spot_place (spot_rowid)",
        """
        CREATE TABLE visit (
            id text PRIMARY KEY,
            spot_id text REFERENCES spot (id) ON DELETE SET NULL,
            time double precision NOT NULL,
            time_zone text NOT NULL,
            local_day text NOT NULL,
            lat double precision NOT NULL,
            lon double precision NOT NULL,
            note text,
            photo_path text)
        """,
        "CREATE INDEX visit_time ON visit (time)",
        "CREATE INDEX visit_day ON visit (local_day)",
        "CREATE INDEX visit_spot ON visit (spot_id)",
    ]
}
