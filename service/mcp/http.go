package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/handoff-dev/handoff/service/client"
)

// HTTPOptions configure the streamable HTTP handler.
type HTTPOptions struct {
	// HTTPClient calls the service. Nil is the client package's default.
	HTTPClient *http.Client
	// Logger receives the transport's log. Nil is silent.
	Logger *slog.Logger
	// SessionTimeout closes a session idle that long. Zero keeps it until the client
	// ends it.
	SessionTimeout time.Duration
}

// tokenKey holds the bearer token in a verified request's TokenInfo.
const tokenKey = "handoff_token"

// verifiedFor is the lifetime given a token the service just accepted. Every HTTP
// request is checked with the service again, so a token it stops accepting is refused on
// the next request.
const verifiedFor = time.Minute

// NewHTTPHandler serves MCP over streamable HTTP for the service at base. Each request
// must carry a bearer token of the service's principals: the token is checked with the
// service (a missing or unknown one is answered 401), and each MCP session is bound to
// the principal of the token that opened it: its tool calls go to the service with that
// token, and a request of the session with another token is refused.
func NewHTTPHandler(base string, opts HTTPOptions) http.Handler {
	verify := func(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		_, err := client.New(base, token, opts.HTTPClient).Packs(ctx)
		var ce *client.Error
		if errors.As(err, &ce) && (ce.Status == http.StatusUnauthorized || ce.Status == http.StatusForbidden) {
			return nil, auth.ErrInvalidToken
		}
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256([]byte(token))
		return &auth.TokenInfo{UserID: hex.EncodeToString(sum[:]), Expiration: time.Now().Add(verifiedFor),
			Extra: map[string]any{tokenKey: token}}, nil
	}
	serve := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		info := auth.TokenInfoFromContext(r.Context())
		if info == nil {
			return nil
		}
		token, _ := info.Extra[tokenKey].(string)
		srv, err := New(r.Context(), client.New(base, token, opts.HTTPClient))
		if err != nil {
			if opts.Logger != nil {
				opts.Logger.Error("mcp session not opened", "err", err)
			}
			return nil
		}
		return srv
	}, &sdk.StreamableHTTPOptions{Logger: opts.Logger, SessionTimeout: opts.SessionTimeout})
	return auth.RequireBearerToken(verify, nil)(serve)
}
