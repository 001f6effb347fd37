package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Delivery is the record of one event a receiver took (answered 2xx).
type Delivery struct {
	Tenant      string    `json:"tenant_id"`
	ID          string    `json:"id"` // Event.ID
	Endpoint    string    `json:"endpoint"`
	Type        string    `json:"type"`
	DecisionID  string    `json:"decision_id"`
	WorkflowID  string    `json:"workflow_id"`
	Status      int       `json:"status"` // the receiver's HTTP status
	DeliveredAt time.Time `json:"delivered_at"`
}

// Deliveries records the events receivers took, so that the sweep after a restart
// sends only those that were not. Every read is scoped by tenant. Implementations are
// safe for concurrent use.
type Deliveries interface {
	// Delivered reports whether the tenant's event id was recorded delivered.
	Delivered(ctx context.Context, tenant, id string) (bool, error)
	// Record records a delivery; recording one again (another process, a resend) is no
	// error.
	Record(ctx context.Context, d Delivery) error
	Close() error
}

// DeliveriesFile is the name of the delivery records beside a Badger store.
const DeliveriesFile = "webhook-deliveries.jsonl"

// DefaultRetention is how long a FileDeliveries keeps a record.
const DefaultRetention = 30 * 24 * time.Hour

// FileDeliveries keeps the delivery records of one process in a file of JSON lines,
// each synced before Record returns: the records of a Badger store, which one process
// opens at a time. A record older than its retention is dropped when the file is opened
// (a gate that still waits then is sent once more after a restart).
type FileDeliveries struct {
	mu   sync.Mutex
	f    *os.File
	seen map[string]bool // tenant "\x00" id
}

// OpenFileDeliveries opens (or creates) the records at path, dropping those older than
// retention (DefaultRetention when 0). A last line cut short by a crash is dropped;
// any other line that is not a record is an error.
func OpenFileDeliveries(path string, retention time.Duration) (*FileDeliveries, error) {
	if retention <= 0 {
		retention = DefaultRetention
	}
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("webhook: delivery records: %w", err)
	}
	fd := &FileDeliveries{seen: map[string]bool{}}
	var keep bytes.Buffer
	dropped := false
	cutoff := time.Now().Add(-retention)
	lines := bytes.Split(b, []byte("\n"))
	for i, line := range lines {
		last := i == len(lines)-1
		if last && len(line) == 0 {
			break
		}
		var d Delivery
		if err := json.Unmarshal(line, &d); err != nil || d.ID == "" {
			if last { // no newline after it: the torn last write of a crash
				dropped = true
				break
			}
			return nil, fmt.Errorf("webhook: delivery records %s: line %d is not a record", path, i+1)
		}
		if last || d.DeliveredAt.Before(cutoff) {
			dropped = true // rewritten: with its newline, or without it
		}
		if d.DeliveredAt.Before(cutoff) {
			continue
		}
		fd.seen[d.Tenant+"\x00"+d.ID] = true
		keep.Write(line)
		keep.WriteByte('\n')
	}
	if dropped {
		if err := replaceFile(path, keep.Bytes()); err != nil {
			return nil, fmt.Errorf("webhook: delivery records: %w", err)
		}
	}
	if fd.f, err = os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err != nil {
		return nil, fmt.Errorf("webhook: delivery records: %w", err)
	}
	return fd, nil
}

// replaceFile writes b to path through a file beside it, renamed over it once synced.
func replaceFile(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Delivered implements Deliveries.
func (fd *FileDeliveries) Delivered(_ context.Context, tenant, id string) (bool, error) {
	fd.mu.Lock()
	defer fd.mu.Unlock()
	return fd.seen[tenant+"\x00"+id], nil
}

// Record implements Deliveries.
func (fd *FileDeliveries) Record(_ context.Context, d Delivery) error {
	line, err := json.Marshal(d)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	fd.mu.Lock()
	defer fd.mu.Unlock()
	key := d.Tenant + "\x00" + d.ID
	if fd.seen[key] {
		return nil
	}
	if fd.f == nil {
		return errors.New("webhook: delivery records: closed")
	}
	if _, err := fd.f.Write(line); err != nil {
		return fmt.Errorf("webhook: delivery records: %w", err)
	}
	if err := fd.f.Sync(); err != nil {
		return fmt.Errorf("webhook: delivery records: %w", err)
	}
	fd.seen[key] = true
	return nil
}

// Close implements Deliveries.
func (fd *FileDeliveries) Close() error {
	fd.mu.Lock()
	defer fd.mu.Unlock()
	if fd.f == nil {
		return nil
	}
	err := fd.f.Close()
	fd.f = nil
	return err
}

var _ io.Closer = (*FileDeliveries)(nil)
