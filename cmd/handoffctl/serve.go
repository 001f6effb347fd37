package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/service"
	"github.com/handoff-dev/handoff/service/webhook"
	"github.com/handoff-dev/handoff/store"
)

var serveCmd = &command{
	name:  "serve",
	args:  "--principals FILE [--addr HOST:PORT] [--tls-cert FILE --tls-key FILE] [--insecure-dev] [--eval-timeout D] [--shutdown-timeout D] [--pg-max-conns N] [--pg-statement-timeout D] [--webhooks FILE] [--bundle DIR|ARCHIVE [--bundle-key FILE]] [--shadow-bundle DIR [--shadow-log FILE] [--shadow-queue N]]",
	short: "serve the engine over HTTP: the /v1 API, health and metrics",
	long: `Serve runs the engine on the store of --store (created when missing) and serves it over
HTTP until SIGTERM or SIGINT, then drains the calls in flight (at most
--shutdown-timeout), closes the store and exits (0 when every call finished).

The bundle is that of --bundle: a directory (DIR/contracts and DIR/policies) or a bundle
archive (FILE.tar.gz, from 'handoffctl bundle build'); the shipped packs without it. It
is compiled at start: one that does not compile stops serve before it listens. With
--bundle-key only a bundle signed by that Ed25519 public key is loaded ('handoffctl
bundle sign': DIR/.signature.json or ARCHIVE.sig beside it); an unsigned or wrongly
signed one stops serve at start and is refused at a reload.

SIGHUP, or POST /v1/admin/bundle/reload by an admin principal, reloads the bundle
from --bundle without a restart: the new one is read, checked and compiled beside the
live one, then decides every request that starts from then on (each decision records
the digest of the bundle that decided it). One that does not load, compile or verify
is refused, the live one keeps deciding, and why is in one log line, in
handoff_bundle_reloads_total{result} and in GET /v1/admin/bundle. SIGHUP reads the
principals file again too; one that does not parse leaves the previous principals.
docs/bundles.md has the archive, the signature and the admin API.

Every /v1 call needs "Authorization: Bearer TOKEN" (the scheme in any case) with a token
of the principals file of --principals (or HANDOFF_PRINCIPALS): a JSON document

  {"principals": [{"name": "orchestrator", "token_sha256": "<handoffctl token>",
                   "tenant_id": "acme", "type": "system", "id": "orchestrator"},
                  {"name": "maria", "token_sha256": "...", "tenant_id": "acme",
                   "type": "human", "id": "maria", "roles": ["campaign_approver"],
                   "expires_at": "2027-01-01T00:00:00Z"}]}

name, token_sha256, tenant_id, type (agent, human or system) and id are required;
roles, "admin": true and expires_at (RFC 3339) are optional. From its expires_at on, a
token is refused 401 UNAUTHENTICATED with a hint that says when it expired.

A request must name its principal's tenant and actor and claim only its roles, or it
is refused with 403 IDENTITY_MISMATCH (and kept in the principal's tenant's audit
stream); reads are scoped to the principal's tenant, except for a principal with
"admin": true. /health, /health/ready, /metrics and /v1/openapi.json need no token.

--insecure-dev serves without tokens, every caller an admin and every request
submitted unchecked: for a demo on a loopback address only, and it says so at start.

The API is described by /v1/openapi.json. A block is a decision (200); 401 no, unknown
or expired token, 403 another tenant or IDENTITY_MISMATCH, 404 no such workflow or
decision, 400 a bad parameter or a body that cannot be read, 408 a body that did not
arrive within 5 s plus 4 s per MiB, 413 a body over the engine's request limit (1 MiB),
415 not application/json, 503 STORE_UNAVAILABLE the store cannot be reached (on every
route that reads or writes it) or NO_DECISION no decision could be made (the host
treats the request as blocked and sends it again with the same request_id), 500
INTERNAL. An error's message never carries an internal error: the log does. One access
log line per call goes to standard error (JSON), and one error line per 5xx answer.

/health/ready is 200 when a decision could be recorded now: the store is reachable,
takes writes and has this version's schema. A PostgreSQL hot standby, or a role or
database whose default_transaction_read_only is on, is not ready (503 NOT_READY), nor is
a database that cannot be reached; the answer names the cause, never the database's
host or role. The server logs when the database becomes unreachable and when it is back.

A PostgreSQL store's connection pool and session take the parameters of its URL
(pool_max_conns, pool_min_conns, pool_max_conn_lifetime, connect_timeout,
statement_timeout, and any other session setting): --pg-max-conns and
--pg-statement-timeout override pool_max_conns and statement_timeout. Without either,
at least 8 connections (4 per CPU) and 10s. /metrics exports the pool
(handoff_store_pool_*).

With OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set, every
decision is traced (a span per decision, a child span per stage: decode, validate,
policy, commit; the request's trace_id as the attribute handoff.trace_id) and exported
over OTLP/HTTP, configured by the standard OTEL_EXPORTER_OTLP_* variables. The
resource's service.name is "handoff" unless OTEL_SERVICE_NAME or
OTEL_RESOURCE_ATTRIBUTES sets it; the other attributes of OTEL_RESOURCE_ATTRIBUTES
are kept.

With --webhooks (or HANDOFF_WEBHOOKS) a file of endpoints per tenant is told, by a
signed POST, of every decision that waits for a person (await_human) or hands a case to
people (escalation):

  {"webhooks": [{"name": "pager", "tenant_id": "acme",
                 "url": "https://hooks.example.com/handoff",
                 "events": ["await_human", "escalation"],
                 "secret_env": "ACME_WEBHOOK_SECRET"}]}

name, tenant_id, url (http or https), events and the signing secret's place
(secret_env: an environment variable, or secret_file: a file; never the secret itself)
are required; escalation_statuses (default ["ESCALATED"]) is optional. Deliveries are
retried, recorded (beside a Badger store in webhook-deliveries.jsonl, in a PostgreSQL
store's handoff_webhook_deliveries) and, at start, the gates whose delivery is not
recorded are sent again: at least once, each with an id the receiver dedupes by. At
shutdown queued deliveries get at most --shutdown-timeout more. /metrics exports
handoff_webhook_*. docs/webhooks.md has the event, its signature and how to verify it.

With --shadow-bundle DIR a candidate bundle decides every recorded request again, in
the background, exactly as 'handoffctl replay' would, never delaying or changing the
live answer: at most --shadow-queue decisions wait for it (more are dropped and
counted). Each decision it would make otherwise goes to the shadow log (NDJSON: in a
Badger store's directory as ` + shadowLogFile + `, or --shadow-log FILE, required
with PostgreSQL), to /metrics (handoff_shadow_*), to admins at /v1/admin/shadow and to
a tenant's admins on the console's /console/shadow; POST /v1/admin/shadow/promote makes
it the live bundle. 'handoffctl shadow report' summarises the log; docs/shadow.md has
the rest.

With -o json what serve says on standard output is JSON lines (NDJSON), one object per
event: {"event": "serving", "url", "store", "bundle_digest"}, {"event": "tracing"},
{"event": "webhooks", "endpoints"}, {"event": "shadow", "candidate_digest", "log"},
{"event": "shutting_down"}.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		addr := fs.String("addr", "127.0.0.1:8080", "listen on `HOST:PORT`")
		principals := fs.String("principals", os.Getenv("HANDOFF_PRINCIPALS"), "the principals `FILE` (default HANDOFF_PRINCIPALS)")
		cert := fs.String("tls-cert", "", "serve HTTPS with the certificate `FILE`")
		key := fs.String("tls-key", "", "the private key `FILE` of --tls-cert")
		insecure := fs.Bool("insecure-dev", false, "no authentication: a loopback demo only")
		drain := fs.Duration("shutdown-timeout", 30*time.Second, "how long calls in flight may finish at shutdown")
		evalTimeout := fs.Duration("eval-timeout", 2*time.Second, "the deadline of one policy evaluation (past it: POLICY_TIMEOUT, a block)")
		pgMaxConns := fs.Int("pg-max-conns", 0, "a PostgreSQL store: at most `N` connections (over the URL's pool_max_conns; default at least 8)")
		pgTimeout := fs.Duration("pg-statement-timeout", 0, "a PostgreSQL store: each statement's deadline `D` (over the URL's statement_timeout; default 10s)")
		webhooks := fs.String("webhooks", os.Getenv("HANDOFF_WEBHOOKS"), "tell the endpoints of the webhooks `FILE` of gates and escalations (default HANDOFF_WEBHOOKS)")
		shadowBundle := fs.String("shadow-bundle", "", "decide every request again, in the background, with the candidate bundle `DIR` (see docs/shadow.md)")
		shadowLog := fs.String("shadow-log", "", "append the shadow's disagreements to `FILE` (default: in a Badger store's directory; required with PostgreSQL)")
		shadowQueue := fs.Int("shadow-queue", 4096, "at most `N` decisions wait for the shadow bundle; more are dropped and counted")
		bundleKey := fs.String("bundle-key", "", "load only a bundle signed by the Ed25519 public key `FILE` (handoffctl bundle sign)")
		return func(ctx context.Context, c *cli, args []string) (err error) {
			if len(args) > 0 {
				return usagef("serve takes no arguments")
			}
			if (*cert == "") != (*key == "") {
				return usagef("--tls-cert and --tls-key go together")
			}
			switch {
			case (*pgMaxConns != 0 || *pgTimeout != 0) && !store.IsURL(c.db.value):
				return usagef("--pg-max-conns and --pg-statement-timeout apply to a PostgreSQL store: --store postgres://…")
			case *pgMaxConns < 0 || *pgMaxConns > math.MaxInt32:
				return usagef("--pg-max-conns takes a number of connections, not %d", *pgMaxConns)
			case *pgTimeout < 0 || *pgTimeout > 0 && *pgTimeout < time.Millisecond:
				return usagef("--pg-statement-timeout takes a duration of at least 1ms, not %s", *pgTimeout)
			}
			opts := service.Options{Logger: slog.New(slog.NewJSONHandler(c.stderr, nil))}
			switch {
			case *insecure:
				host, _, err := net.SplitHostPort(*addr)
				if ip := net.ParseIP(host); err != nil || host != "localhost" && (ip == nil || !ip.IsLoopback()) {
					return usagef("--insecure-dev serves a loopback address only (127.0.0.1:PORT), not %q", *addr)
				}
				opts.InsecureDev = true
			case *principals == "":
				return usagef("serve needs --principals FILE (or HANDOFF_PRINCIPALS): the tokens it accepts; see 'handoffctl help serve'")
			default:
				if opts.Principals, err = service.LoadPrincipals(*principals); err != nil {
					return err
				}
			}
			var hooks *webhook.Config
			if *webhooks != "" {
				if hooks, err = webhook.LoadConfig(*webhooks); err != nil {
					return err
				}
				// One registry for the service's metrics and the notifier's.
				reg := prometheus.NewRegistry()
				reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
				opts.Registerer, opts.Gatherer = reg, reg
			}
			b, source, err := c.serveBundle(*bundleKey, *evalTimeout)
			if err != nil {
				return err
			}
			opts.Bundle = source
			eopts := engine.Options{Bundle: &b, EvalTimeout: *evalTimeout, Logger: opts.Logger,
				Postgres: store.PostgresOptions{MaxConns: int32(*pgMaxConns), StatementTimeout: *pgTimeout}}
			storeAt(&eopts, c.db.value)
			if os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "" {
				exp, err := otlptracehttp.New(ctx)
				if err != nil {
					return fmt.Errorf("OTLP trace exporter: %w", err)
				}
				res, err := traceResource(ctx)
				if err != nil {
					return err
				}
				tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
				defer func() { err = errors.Join(err, tp.Shutdown(context.WithoutCancel(ctx))) }()
				eopts.TracerProvider = tp
				c.say(map[string]string{"event": "tracing"}, "tracing: every decision is exported over OTLP/HTTP")
			}
			e, err := engine.Open(ctx, eopts)
			if err != nil {
				return c.lockedHint(err)
			}
			defer closeEngine(e, &err)
			stopShadow, err := startShadow(ctx, c, e, &opts, shadowServe{bundle: *shadowBundle, log: *shadowLog, queue: *shadowQueue})
			if err != nil {
				return err
			}
			defer stopShadow()
			handler := service.New(e, opts)
			if hooks != nil {
				stop, err := startWebhooks(ctx, e, c.db.value, hooks, opts, *drain)
				if err != nil {
					return err
				}
				defer stop()
				c.say(map[string]string{"event": "webhooks", "endpoints": strconv.Itoa(len(hooks.Endpoints))},
					fmt.Sprintf("webhooks: %d endpoints of %d tenants", len(hooks.Endpoints), len(hooks.Tenants())))
			}
			ln, err := net.Listen("tcp", *addr)
			if err != nil {
				return err
			}
			srv := &http.Server{
				Handler:           handler,
				ReadHeaderTimeout: 5 * time.Second,
				ReadTimeout:       30 * time.Second,
				WriteTimeout:      2 * time.Minute,
				IdleTimeout:       2 * time.Minute,
				MaxHeaderBytes:    64 << 10,
			}
			scheme := "http"
			if *cert != "" {
				scheme = "https"
			}
			if opts.InsecureDev {
				fmt.Fprintln(c.stderr, "WARNING: --insecure-dev: no authentication, every caller is an admin and every request is taken as sent. Never expose this address.")
			}
			url := fmt.Sprintf("%s://%s", scheme, ln.Addr())
			where := c.db.value
			if store.IsURL(where) {
				where = redactedURL(where)
			} else {
				// Beside the store, for the hint of a command that finds it locked.
				urlFile := filepath.Join(c.db.value, serveURLFile)
				if err := os.WriteFile(urlFile, []byte(url+"\n"), 0o644); err != nil {
					return err
				}
				defer os.Remove(urlFile)
			}
			if opts.InsecureDev {
				*principals = "" // no principals to reload
			}
			// Taken before the server says it serves: from then on SIGHUP reloads.
			defer reloadOnHangup(ctx, handler, *principals, opts.Logger)()
			c.say(map[string]string{"event": "serving", "url": url, "store": where, "bundle_digest": e.Decider().BundleDigest()},
				fmt.Sprintf("serving handoff on %s (store %s, bundle %s)", url, where, e.Decider().BundleDigest()))
			sig, stop := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt)
			defer stop()
			served := make(chan error, 1)
			go func() {
				if *cert != "" {
					served <- srv.ServeTLS(ln, *cert, *key)
				} else {
					served <- srv.Serve(ln)
				}
			}()
			select {
			case err := <-served:
				return err
			case <-sig.Done():
			}
			c.say(map[string]string{"event": "shutting_down"}, "shutting down: draining calls in flight")
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), *drain)
			defer cancel()
			if err := srv.Shutdown(dctx); err != nil {
				return fmt.Errorf("shutdown: %w", err)
			}
			if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		}
	},
}

// startWebhooks starts the notifier of the webhooks file on e, its deliveries recorded
// in the store at where. stop drains it for at most drain, then closes the records: what
// it abandons is logged, and sent again by the next start's sweep.
func startWebhooks(ctx context.Context, e *engine.Engine, where string, hooks *webhook.Config, opts service.Options, drain time.Duration) (stop func(), err error) {
	var recs webhook.Deliveries
	if store.IsURL(where) {
		recs, err = webhook.OpenPostgresDeliveries(ctx, where)
	} else {
		recs, err = webhook.OpenFileDeliveries(filepath.Join(where, webhook.DeliveriesFile), 0)
	}
	if err != nil {
		return nil, err
	}
	n, err := webhook.New(e, hooks, webhook.Options{Deliveries: recs, Logger: opts.Logger, Registerer: opts.Registerer})
	if err != nil {
		recs.Close()
		return nil, err
	}
	return func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), drain)
		defer cancel()
		if err := n.Close(dctx); err != nil {
			opts.Logger.Warn("webhooks not delivered at shutdown: the next start sends the gates among them again", "error", err)
		}
		if err := recs.Close(); err != nil {
			opts.Logger.Warn("webhook delivery records", "error", err)
		}
	}, nil
}

// traceResource describes the process in the traces it exports: service.name "handoff"
// unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES says otherwise (the former wins),
// with every other attribute of OTEL_RESOURCE_ATTRIBUTES and the SDK's own.
func traceResource(ctx context.Context) (*resource.Resource, error) {
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", "handoff")),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("OTEL_RESOURCE_ATTRIBUTES: %w", err)
	}
	return res, nil
}

var tokenCmd = &command{
	name:  "token",
	args:  "[TOKEN]",
	short: "make a bearer token for a principals file, or hash one",
	long: `Token prints a new random bearer token and the SHA-256 a principals file holds for it
(token_sha256; see 'handoffctl help serve'). With TOKEN it prints that token's hash. The
token goes to the principal; only the hash goes in the file.

With -o json the output is one JSON object: token (when made), token_sha256.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		return func(_ context.Context, c *cli, args []string) error {
			switch len(args) {
			case 0:
				b := make([]byte, 32)
				if _, err := rand.Read(b); err != nil {
					return err
				}
				tok := base64.RawURLEncoding.EncodeToString(b)
				if c.json() {
					return writeJSON(c.stdout, map[string]string{"token": tok, "token_sha256": service.HashToken(tok)})
				}
				fmt.Fprintf(c.stdout, "token         %s\ntoken_sha256  %s\n", tok, service.HashToken(tok))
			case 1:
				if c.json() {
					return writeJSON(c.stdout, map[string]string{"token_sha256": service.HashToken(args[0])})
				}
				fmt.Fprintln(c.stdout, service.HashToken(args[0]))
			default:
				return usagef("token takes at most one argument")
			}
			return nil
		}
	},
}
