// Package pgtest gives tests a PostgreSQL database of their own: a new schema in the
// database HANDOFF_TEST_POSTGRES names, dropped when the test ends. Without that
// variable a test that needs PostgreSQL says so and is skipped, unless
// HANDOFF_REQUIRE_POSTGRES=1 (set by CI), which fails it instead.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Env names the variable holding the URL of the test database.
const Env = "HANDOFF_TEST_POSTGRES"

// Require stops t when no test database is configured: a skip that names the variable,
// or a failure when HANDOFF_REQUIRE_POSTGRES=1.
func Require(t testing.TB) string {
	t.Helper()
	base := os.Getenv(Env)
	if base != "" {
		return base
	}
	if os.Getenv("HANDOFF_REQUIRE_POSTGRES") == "1" {
		t.Fatalf("PostgreSQL is required (HANDOFF_REQUIRE_POSTGRES=1) but %s is not set", Env)
	}
	t.Skipf("PostgreSQL not available: set %s=postgres://… to run this test", Env)
	return ""
}

// URL creates an empty schema for t and returns the URL of the test database with
// that schema as its search path. The schema is dropped when t ends.
func URL(t testing.TB) string {
	t.Helper()
	base := Require(t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "handoff_test_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to the test database %s: %v", Env, err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema %s: %v", schema, err)
	}
	t.Cleanup(func() { Drop(base, schema) })
	return WithSchema(t, base, schema)
}

// WithSchema returns base with schema as its search path.
func WithSchema(t testing.TB, base, schema string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s is not a URL: %v", Env, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Drop drops schema and everything in it.
func Drop(base, schema string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		return
	}
	defer conn.Close(context.Background())
	_, _ = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
}
