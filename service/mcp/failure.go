package mcp

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/handoff-dev/handoff/service/client"
)

// failure turns an error of the service into a tool error (IsError, with the message a
// model or its operator needs): a refused token, a request the service could not take
// (not JSON, not the pack's schema), a workflow not found, the service unreachable.
func (s *server) failure(err error) (*sdk.CallToolResult, any, error) {
	var ce *client.Error
	if !errors.As(err, &ce) {
		return nil, nil, fmt.Errorf("the Handoff service could not be reached: %v; nothing was decided", err)
	}
	var b strings.Builder
	switch ce.Status {
	case http.StatusUnauthorized:
		b.WriteString("The Handoff service refused the token (" + ce.Code + "): check the token this MCP server was given. ")
	case http.StatusForbidden:
		b.WriteString("The principal may not do this (" + ce.Code + "). ")
	default:
		fmt.Fprintf(&b, "The Handoff service answered %d %s. ", ce.Status, ce.Code)
	}
	b.WriteString(untrusted(ce.Message))
	if ce.Hint != "" {
		b.WriteString("\nHint: " + ce.Hint)
	}
	return nil, nil, errors.New(b.String())
}
