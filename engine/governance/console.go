package governance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/handoff-dev/handoff/store"
)

// consoleTypePrefix starts the record type of every console event. A tenant's audit
// stream holds two kinds of records: "security" records (requests too broken to trust,
// each a decision) and console events (who signed in to the review console, signed out,
// or was refused). The readers that decode decisions pass console events over.
const consoleTypePrefix = "console."

// The console's events, as ConsoleEvent.Event names them.
const (
	ConsoleSignin        = "signin"         // a person signed in: the session's record
	ConsoleSignout       = "signout"        // a person signed out of one session
	ConsoleSignoutAll    = "signout_all"    // a person signed out of every session
	ConsoleSigninRefused = "signin_refused" // a known principal who may not sign in tried
	ConsoleFormRefused   = "form_refused"   // a form was refused: CSRF token or origin
)

var consoleEvents = map[string]bool{ConsoleSignin: true, ConsoleSignout: true, ConsoleSignoutAll: true,
	ConsoleSigninRefused: true, ConsoleFormRefused: true}

// ConsoleEvent is one thing a person did, or was refused, in the review console, as a
// tenant's audit stream records it. It never holds a token or a form's content: a
// session is named by the SHA-256 of its token, which cannot be turned back into it.
type ConsoleEvent struct {
	Event string `json:"console"`      // one of the Console* names
	ID    string `json:"id,omitempty"` // the record's id in the store's index, when it has one

	Person  string   `json:"person,omitempty"`   // the principal's name
	ActorID string   `json:"actor_id,omitempty"` // the actor id the person's requests carry
	Roles   []string `json:"roles,omitempty"`
	Admin   bool     `json:"admin,omitempty"`

	// Session is the hex SHA-256 of the session's token (sign-in and sign-out).
	Session string `json:"session,omitempty"`
	// ExpiresAt is when a sign-in ends, RFC 3339.
	ExpiresAt string `json:"expires_at,omitempty"`
	// Epoch is the person's sign-out-everywhere count a sign-in belongs to, or the one a
	// sign-out everywhere ends.
	Epoch uint64 `json:"epoch,omitempty"`

	Path      string `json:"path,omitempty"`       // the page the event happened on
	Reason    string `json:"reason,omitempty"`     // why it was refused, in words
	UserAgent string `json:"user_agent,omitempty"` // the browser, truncated
}

// IsConsoleRecord reports whether a record of an audit stream is a console event rather
// than a security record.
func IsConsoleRecord(rec store.Record) bool { return strings.HasPrefix(rec.Type, consoleTypePrefix) }

// ConsoleRecordType is the record type of an event.
func ConsoleRecordType(event string) string { return consoleTypePrefix + event }

// EncodeConsoleEvent checks an event and returns its payload, keys sorted, so that the
// same event is the same bytes whichever backend holds it.
func EncodeConsoleEvent(ev ConsoleEvent) ([]byte, error) {
	if !consoleEvents[ev.Event] {
		return nil, fmt.Errorf("engine: console event %q: unknown", ev.Event)
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return nil, fmt.Errorf("engine: console event: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("engine: console event: %w", err)
	}
	return json.Marshal(m) // a map's keys are written sorted
}

// DecodeConsoleEvent reads a console record; a record that is not one, or whose payload
// names another event than its type, is an error.
func DecodeConsoleEvent(rec store.Record) (ConsoleEvent, error) {
	ev, ok := consolePayload(rec.Payload)
	if !ok || !IsConsoleRecord(rec) || ConsoleRecordType(ev.Event) != rec.Type {
		return ConsoleEvent{}, fmt.Errorf("engine: audit record %d: type %q: not a console event: %w", rec.Seq, rec.Type, store.ErrTampered)
	}
	return ev, nil
}

// consolePayload reads a payload as a console event: ok only for a known event.
func consolePayload(payload []byte) (ConsoleEvent, bool) {
	if !bytes.Contains(payload, []byte(`"console"`)) {
		return ConsoleEvent{}, false // a security record: not worth decoding twice
	}
	var ev ConsoleEvent
	if err := json.Unmarshal(payload, &ev); err != nil || !consoleEvents[ev.Event] {
		return ConsoleEvent{}, false
	}
	return ev, true
}
