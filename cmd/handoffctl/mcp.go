package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/handoff-dev/handoff/service/client"
	"github.com/handoff-dev/handoff/service/mcp"
)

var mcpCmd = &command{
	name:  "mcp",
	args:  "--server URL [--token-file FILE] [--http ADDR]",
	short: "serve a running server's governed handoffs to MCP clients (Model Context Protocol)",
	long: `Mcp serves the Handoff service at --server (a running 'handoffctl serve') to any
runtime that speaks the Model Context Protocol: its agents get governed handoffs
through tools, without an adapter.

Tools: next (what a workflow waits for and what may be sent), template (a request
skeleton, filled for a workflow), validate (a dry run), submit, state and explain. A
refusal of the engine is a tool result with the outcome and each reason's code,
message and what to fix; text from requests is quoted between <untrusted-data>
markers. Resources: each pack's contract (handoff://packs/PACK/contract) and the
JSON Schema of each request kind (handoff://packs/PACK/schemas/KIND). Prompts: one per
pack (PACK-rules) explaining its rules from the served contract.

Over stdio (the default) the server speaks MCP on stdin and stdout and acts for the
principal of one token: --token-file FILE, else HANDOFF_TOKEN. It checks the token
with the service before it starts.

With --http ADDR it serves streamable HTTP at ADDR (path /, any path): every HTTP
request carries its principal's token as "Authorization: Bearer TOKEN", checked with
the service on each request (a missing or refused token is answered 401), and each
MCP session acts for the principal of the token that opened it; a request with
another token is refused. --token-file and HANDOFF_TOKEN are not used over HTTP.
With -o json it writes {"event": "serving", "url"} once it listens.`,
	setup: func(fs *flag.FlagSet) func(context.Context, *cli, []string) error {
		tokenFile := fs.String("token-file", "", "the principal's token in `FILE` (stdio; default env HANDOFF_TOKEN)")
		addr := fs.String("http", "", "serve streamable HTTP at `ADDR` (host:port) instead of stdio")
		return func(ctx context.Context, c *cli, args []string) error {
			if len(args) != 0 {
				return usagef("mcp takes no arguments")
			}
			if c.server == "" {
				return usagef("--server URL is required: mcp serves a running 'handoffctl serve'")
			}
			mcp.Version = readBuildVersion().Version
			if *addr != "" {
				if *tokenFile != "" {
					return usagef("--token-file is for stdio: over --http each request carries its own bearer token")
				}
				return serveMCPHTTP(ctx, c, *addr)
			}
			token, err := mcpToken(*tokenFile)
			if err != nil {
				return err
			}
			srv, err := mcp.New(ctx, client.New(c.server, token, nil))
			if err != nil {
				return withHint(err, "check --server and the token (--token-file or HANDOFF_TOKEN): it must be one of the server's principals")
			}
			return srv.Run(ctx, &sdk.IOTransport{Reader: io.NopCloser(c.stdin), Writer: nopWriteCloser{c.stdout}})
		}
	},
}

// mcpToken reads the principal's token: the file's first line, else HANDOFF_TOKEN.
func mcpToken(file string) (string, error) {
	if file == "" {
		if t := os.Getenv("HANDOFF_TOKEN"); t != "" {
			return t, nil
		}
		return "", usagef("no token: give the principal's token with --token-file FILE or HANDOFF_TOKEN")
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	token, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if token == "" {
		return "", usagef("--token-file %s is empty", file)
	}
	return strings.TrimSpace(token), nil
}

// serveMCPHTTP serves MCP over streamable HTTP at addr until a signal, then drains.
func serveMCPHTTP(ctx context.Context, c *cli, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(c.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := &http.Server{
		Handler:           mcp.NewHTTPHandler(c.server, mcp.HTTPOptions{Logger: logger, SessionTimeout: 30 * time.Minute}),
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	url := "http://" + ln.Addr().String()
	c.say(map[string]string{"event": "serving", "url": url}, fmt.Sprintf("serving MCP on %s for %s", url, c.server))
	sig, stop := signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt, syscall.SIGHUP)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-sig.Done():
	}
	// The streams of open sessions never go idle: drain the calls in flight for a few
	// seconds, then close what is left.
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(dctx); errors.Is(err, context.DeadlineExceeded) {
		return srv.Close()
	} else if err != nil {
		return err
	}
	return nil
}

// nopWriteCloser leaves the command's stdout open when the MCP connection closes.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
