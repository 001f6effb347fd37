package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/handoff-dev/handoff/internal/canary"
	"github.com/handoff-dev/handoff/store"
)

// migrationFiles are the schema migrations of a PostgreSQL store, applied in the order
// of their numbers: NNNN_name.sql.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migration is one versioned change of a PostgreSQL store's schema.
type Migration struct {
	Version int    // 1, 2, ...: the number its file starts with
	Name    string // the rest of its file name
	sql     string
}

// Migrations lists the schema migrations this version ships, in order. The last one's
// Version is the schema version it needs.
func Migrations() []Migration {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		panic(err) // embedded at build time
	}
	out := make([]Migration, 0, len(entries))
	for _, e := range entries {
		num, name, ok := strings.Cut(strings.TrimSuffix(e.Name(), ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v != len(out)+1 {
			panic(fmt.Sprintf("store: migration file %s is out of sequence", e.Name()))
		}
		b, err := fs.ReadFile(migrationFiles, path.Join("migrations", e.Name()))
		if err != nil {
			panic(err)
		}
		out = append(out, Migration{Version: v, Name: name, sql: string(b)})
	}
	return out
}

// SchemaVersion is the schema version a PostgreSQL store of this version needs.
func SchemaVersion() int { return len(Migrations()) }

const createSchemaTable = `CREATE TABLE IF NOT EXISTS handoff_schema (
    version    integer     NOT NULL,
    name       text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT handoff_schema_pkey PRIMARY KEY (version)
)`

// Migrate brings the schema of the PostgreSQL database opts.URL names up to this
// version's, applying each missing migration in a transaction of its own, and returns
// the ones it applied (none when the schema is current). A schema that is current is
// only read: a role without the right to create tables in the schema may run it. Two
// processes migrating at once cannot both apply a migration: the second fails on the
// version's key and changes nothing. A database at a later version than this one knows
// is refused.
func Migrate(ctx context.Context, opts store.Options) ([]Migration, error) {
	conn, err := connectOnce(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	current, err := schemaVersion(ctx, conn)
	if err != nil {
		return nil, err
	}
	all := Migrations()
	switch {
	case current > len(all):
		return nil, &store.Error{Op: "migrate", Err: fmt.Errorf("%w: the database's schema is at version %d, later than this version's %d: use a newer handoffctl", store.ErrSchema, current, len(all))}
	case current == len(all):
		return nil, nil
	}
	if _, err := conn.Exec(ctx, createSchemaTable); err != nil {
		return nil, migrateError(pgWrap("migrate", err))
	}
	var applied []Migration
	for _, m := range all[current:] {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, `INSERT INTO handoff_schema (version, name) VALUES ($1, $2)`, m.Version, m.Name); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			if m.Version == 1 && canary.DropRecordKey {
				_, err := tx.Exec(ctx, `ALTER TABLE handoff_records DROP CONSTRAINT handoff_records_pkey`)
				return err
			}
			return nil
		})
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == codeUniqueViolation {
			return applied, &store.Error{Op: "migrate", Err: fmt.Errorf("another process applied migration %d at the same time: run migrate again", m.Version)}
		}
		if err != nil {
			err = pgWrap("migrate", err)
			var se *store.Error
			if errors.As(err, &se) {
				err = &store.Error{Op: "migrate", Err: fmt.Errorf("migration %d (%s): %w", m.Version, m.Name, se.Err)}
			}
			return applied, migrateError(err)
		}
		applied = append(applied, m)
	}
	return applied, nil
}

// migrateError says, for a migration the database refused the role, which right it
// needs.
func migrateError(err error) error {
	if errors.Is(err, store.ErrPermission) {
		return fmt.Errorf("%w: the role of the store URL needs the right to create tables in the schema of its search_path (GRANT CREATE ON SCHEMA ...), or run migrate as the schema's owner", err)
	}
	return err
}

// schemaVersion reads the version a database's schema is at: 0 before any migration.
func schemaVersion(ctx context.Context, q interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}) (int, error) {
	var v int
	err := q.QueryRow(ctx, `SELECT COALESCE(max(version), 0) FROM handoff_schema`).Scan(&v)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == codeUndefinedTable {
		return 0, nil
	}
	if err != nil {
		return 0, pgWrap("schema version", err)
	}
	return v, nil
}
