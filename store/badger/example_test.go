package badger_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/handoff-dev/handoff/store"
	"github.com/handoff-dev/handoff/store/badger"
)

func Example() {
	ctx := context.Background()
	l, err := badger.Open(ctx, store.Options{InMemory: true})
	if err != nil {
		log.Fatal(err)
	}
	defer l.Close()

	now := time.Date(2026, 11, 29, 21, 0, 0, 0, time.UTC)
	start := store.Append{
		Tenant: "acme", Workflow: "campaign-42", Create: true, BumpVersion: true,
		Records: []store.NewRecord{
			{Type: "request", Payload: []byte(`{"kind":"start"}`)},
			{Type: "decision", Payload: []byte(`{"outcome":"allow"}`)},
		},
		State:          []byte(`{"status":"RESEARCH"}`),
		IdempotencyKey: "req-1", RequestDigest: "sha256:1111",
		Time: now,
	}
	head, err := l.Append(ctx, start)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("seq", head.Seq, "version", head.StateVersion)

	// The same request again appends nothing and returns the record that answered it.
	_, err = l.Append(ctx, start)
	var dup *store.DuplicateError
	if errors.As(err, &dup) {
		fmt.Println("duplicate:", dup.Record.Seq, string(dup.Record.Payload))
	}

	// A writer that computed its decision from an old version is stale.
	_, err = l.Append(ctx, store.Append{
		Tenant: "acme", Workflow: "campaign-42", ExpectedVersion: 0, BumpVersion: true,
		Records: []store.NewRecord{{Type: "decision", Payload: []byte(`{}`)}}, Time: now,
	})
	fmt.Println(err)

	// Another tenant sees nothing.
	_, _, err = l.State(ctx, "globex", "campaign-42")
	fmt.Println(errors.Is(err, store.ErrNotFound))

	rep, err := l.Verify(ctx, "acme", "campaign-42")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("verified", rep.Records, "records, ok:", rep.OK)
	// Output:
	// seq 2 version 1
	// duplicate: 2 {"outcome":"allow"}
	// store: stale state version: expected 0, actual 1
	// true
	// verified 2 records, ok: true
}
