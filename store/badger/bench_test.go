package badger

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/handoff-dev/handoff/store"
)

// BenchmarkAppend measures durable appends on disk, with group commit and
// with one transaction per append, from one goroutine and from many. Each
// append writes two records, a snapshot and an idempotency key, like a
// decision does.
func BenchmarkAppend(b *testing.B) {
	payload := []byte(`{"kind":"handoff","outcome":"allow","reasons":[],"state_version":7}`)
	state := []byte(`{"status":"STRATEGY","counters":{"qa_cycles":1}}`)
	for _, mode := range []struct {
		name   string
		single bool
	}{{"group", false}, {"single", true}} {
		b.Run(mode.name+"/sequential", func(b *testing.B) {
			l, _ := backend{name: mode.name, single: mode.single}.open(b)
			ctx := context.Background()
			create(b, l, "acme", "wf", 1)
			v := uint64(1)
			for b.Loop() {
				_, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: "wf", ExpectedVersion: v, BumpVersion: true,
					Records: []store.NewRecord{{Type: "request", Payload: payload}, {Type: "decision", Payload: payload}},
					State:   state, IdempotencyKey: fmt.Sprint("req-", v), RequestDigest: "d", Time: t0})
				if err != nil {
					b.Fatal(err)
				}
				v++
			}
		})
		b.Run(mode.name+"/parallel", func(b *testing.B) {
			l, _ := backend{name: mode.name, single: mode.single}.open(b)
			ctx := context.Background()
			var workers atomic.Int64
			b.SetParallelism(16)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				wf := fmt.Sprint("wf-", workers.Add(1))
				_, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: wf, Create: true, BumpVersion: true,
					Records: []store.NewRecord{{Type: "start", Payload: payload}}, Time: t0})
				if err != nil {
					b.Error(err)
					return
				}
				v := uint64(1)
				for pb.Next() {
					_, err := l.Append(ctx, store.Append{Tenant: "acme", Workflow: wf, ExpectedVersion: v, BumpVersion: true,
						Records: []store.NewRecord{{Type: "request", Payload: payload}, {Type: "decision", Payload: payload}},
						State:   state, IdempotencyKey: fmt.Sprint(wf, "-", v), RequestDigest: "d", Time: t0})
					if err != nil {
						b.Error(err)
						return
					}
					v++
				}
			})
		})
	}
}

// BenchmarkState measures the one-key state read.
func BenchmarkState(b *testing.B) {
	l, _ := openDisk(b)
	ctx := context.Background()
	create(b, l, "acme", "wf", 1)
	for b.Loop() {
		if _, _, err := l.State(ctx, "acme", "wf"); err != nil {
			b.Fatal(err)
		}
	}
}
