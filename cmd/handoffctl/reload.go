package main

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/handoff-dev/handoff/engine"
	"github.com/handoff-dev/handoff/engine/bundle"
	"github.com/handoff-dev/handoff/service"
)

// serveBundle is the bundle serve starts with and the source it reloads it from: the
// directory or archive of --bundle, its signature checked with the public key of
// keyFile when set, or the bundle commands use without --bundle. A bundle refused at
// start stops serve before it listens.
func (c *cli) serveBundle(keyFile string, evalTimeout time.Duration) (engine.Bundle, *service.BundleSource, error) {
	if !c.bundle.set {
		if keyFile != "" {
			return engine.Bundle{}, nil, usagef("--bundle-key checks the signature of the bundle of --bundle DIR|ARCHIVE: name one")
		}
		b, err := c.loadBundle()
		if err != nil {
			return engine.Bundle{}, nil, err
		}
		return b, &service.BundleSource{Name: "shipped", Load: func(ctx context.Context) (*engine.Decider, error) {
			b, err := c.loadBundle()
			if err != nil {
				return nil, err
			}
			return engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &b, EvalTimeout: evalTimeout, Paced: true})
		}}, nil
	}
	var pub ed25519.PublicKey
	if keyFile != "" {
		var err error
		if pub, err = readPublicKey(keyFile); err != nil {
			return engine.Bundle{}, nil, err
		}
	}
	source := c.bundle.value
	b, _, err := bundle.LoadVerified(source, pub)
	if err != nil {
		return engine.Bundle{}, nil, withHint(err, "a bundle is a directory (DIR/contracts and DIR/policies) or its archive (handoffctl bundle build); with --bundle-key, signed by handoffctl bundle sign")
	}
	return b, &service.BundleSource{Name: source, Load: func(ctx context.Context) (*engine.Decider, error) {
		b, digest, err := bundle.LoadVerified(source, pub)
		if err != nil {
			return nil, err
		}
		dc, err := engine.NewDecider(ctx, engine.DeciderOptions{Bundle: &b, EvalTimeout: evalTimeout, Paced: true})
		if err != nil {
			return nil, err
		}
		if dc.BundleDigest() != digest {
			// The bundle is in memory: a difference is a fault of the digest, not an edit.
			return nil, fmt.Errorf("the compiled bundle's digest %s is not the digest %s checked", dc.BundleDigest(), digest)
		}
		return dc, nil
	}}, nil
}

// reloadOnHangup reloads the bundle (and the principals file, when one is set) on
// every SIGHUP until stop is called. It takes SIGHUP from the moment it returns.
func reloadOnHangup(ctx context.Context, h *service.Handler, principals string, logger *slog.Logger) (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			select {
			case <-done:
				return
			case <-hup:
				if principals != "" {
					if ps, err := service.LoadPrincipals(principals); err != nil {
						logger.Error("principals reload refused: the previous principals stay", "error", err.Error())
					} else {
						h.ReloadPrincipals(ps)
					}
				}
				h.ReloadBundle(ctx, "signal")
			}
		}
	}()
	return func() {
		signal.Stop(hup)
		close(done)
		<-finished
	}
}
