package service_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/service"
)

// BenchmarkSubmit compares the same load, campaign starts each on a new workflow, by
// in-process Submit and over HTTP on loopback (a principal checked on every call), with
// as many concurrent callers as -cpu gives GOMAXPROCS times 4:
//
//	go test ./service -run '^$' -bench BenchmarkSubmit -cpu 2
func BenchmarkSubmit(b *testing.B) {
	var n atomic.Int64
	body := func() []byte {
		i := n.Add(1)
		return []byte(strings.NewReplacer(`"req-start"`, fmt.Sprintf(`"req-b%d"`, i), `"wf-api"`, fmt.Sprintf(`"wf-b%d"`, i)).Replace(start))
	}
	open := func(b *testing.B) *engine.Engine {
		e, err := engine.Open(context.Background(), engine.Options{Dir: b.TempDir()})
		require.NoError(b, err)
		b.Cleanup(func() { require.NoError(b, e.Close()) })
		return e
	}
	b.Run("in-process", func(b *testing.B) {
		e := open(b)
		p := engine.Principal{Tenant: "acme", Type: "system", ID: "orchestrator"}
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				d, err := e.SubmitFrom(context.Background(), body(), p)
				if err != nil || d.Outcome != engine.Allow {
					b.Errorf("%v %+v", err, d)
				}
			}
		})
	})
	b.Run("http", func(b *testing.B) {
		e := open(b)
		srv := httptest.NewServer(service.New(e, service.Options{Principals: principals(b)}))
		b.Cleanup(srv.Close)
		client := srv.Client()
		client.Transport.(*http.Transport).MaxIdleConnsPerHost = 64
		b.SetParallelism(4)
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				req, _ := http.NewRequest("POST", srv.URL+"/v1/requests", bytes.NewReader(body()))
				req.Header.Set("Authorization", "Bearer "+hostToken)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					b.Error(err)
					continue
				}
				_ = resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Errorf("status %d", resp.StatusCode)
				}
			}
		})
	})
}
