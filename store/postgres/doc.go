// Package postgres is the shared backend of the store.Log contract: a PostgreSQL
// database that any number of processes on any number of machines use at once. Its
// records and hashes are the Badger backend's, byte for byte. Migrate applies the
// embedded schema (migrations/*.sql); Open refuses a database at another version.
//
// No pgx type or error crosses the package boundary.
package postgres
