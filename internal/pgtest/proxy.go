package pgtest

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to a PostgreSQL server and can go down and come back
// on the same address: a database that becomes unreachable and returns, without
// touching the server other tests use.
type Proxy struct {
	t      testing.TB
	target string

	mu    sync.Mutex
	addr  string
	ln    net.Listener
	conns []net.Conn
}

// NewProxy starts a proxy to the server of the URL u and returns it with u rewritten to
// go through it. The proxy is stopped when t ends.
func NewProxy(t testing.TB, u string) (*Proxy, string) {
	t.Helper()
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatalf("proxy: %v", err)
	}
	p := &Proxy{t: t, target: parsed.Host, addr: "127.0.0.1:0"}
	p.Up()
	t.Cleanup(p.Down)
	parsed.Host = p.Addr()
	return p, parsed.String()
}

// Addr is the proxy's address.
func (p *Proxy) Addr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addr
}

// Up listens again on the proxy's address.
func (p *Proxy) Up() {
	p.mu.Lock()
	defer p.mu.Unlock()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatalf("proxy: listen again on %s: %v", p.addr, err)
	}
	p.ln, p.addr = ln, ln.Addr().String()
	go p.serve(ln)
}

func (p *Proxy) serve(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, s)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(s, c); s.Close() }()
		go func() { _, _ = io.Copy(c, s); c.Close() }()
	}
}

// Down stops listening and breaks every connection made through the proxy.
func (p *Proxy) Down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
