package badger

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// logKeyComponent is the attribute that marks records coming from the
// storage engine.
const logKeyComponent = "component"

// badgerLogger routes Badger's logger to a *slog.Logger: errors at Error,
// warnings at Warn, everything else at Debug.
type badgerLogger struct {
	l *slog.Logger
}

func (b badgerLogger) Errorf(format string, args ...any) {
	b.log(slog.LevelError, format, args)
}

func (b badgerLogger) Warningf(format string, args ...any) {
	b.log(slog.LevelWarn, format, args)
}

func (b badgerLogger) Infof(format string, args ...any) {
	b.log(slog.LevelDebug, format, args)
}

func (b badgerLogger) Debugf(format string, args ...any) {
	b.log(slog.LevelDebug, format, args)
}

func (b badgerLogger) log(level slog.Level, format string, args []any) {
	ctx := context.Background()
	if !b.l.Enabled(ctx, level) {
		return
	}
	msg := strings.TrimSpace(fmt.Sprintf(format, args...))
	b.l.Log(ctx, level, msg, slog.String(logKeyComponent, "badger"))
}
