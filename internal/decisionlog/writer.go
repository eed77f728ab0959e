package decisionlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"
)

// Event is one decision log event, in the JSON shape of OPA's decision log
// events (the fields permopa uses): what `permopa decide --log` and
// `permopa hook --log` write, one per line.
type Event struct {
	DecisionID string                `json:"decision_id"`
	Labels     map[string]string     `json:"labels,omitempty"`
	Bundles    map[string]BundleInfo `json:"bundles,omitempty"`
	Path       string                `json:"path"`
	Input      any                   `json:"input"`
	Result     any                   `json:"result"`
	Timestamp  string                `json:"timestamp"`
	Custom     map[string]any        `json:"custom,omitempty"`
}

// BundleInfo is a bundle's revision, as OPA logs it.
type BundleInfo struct {
	Revision string `json:"revision,omitempty"`
}

// WriterOptions describe what a Writer puts in every event.
type WriterOptions struct {
	// Source says which command decided ("decide", "hook claude"); it is
	// logged as labels.source.
	Source string
	// Bundles are the revisions of the bundles the policy came from, by name.
	Bundles map[string]string
	// Mask are the pointers erased from each input (nil: DefaultMask; an
	// empty list erases nothing).
	Mask []string
}

// Writer appends one event per call to a file. Each event is a single
// write of one line to a file opened with O_APPEND, so that hooks running
// at the same time never interleave their lines. It is safe for
// concurrent use.
type Writer struct {
	mu   sync.Mutex
	f    *os.File
	opts WriterOptions
	now  func() time.Time
}

// Open opens (creating it with mode 0600) the log file at path for
// appending. It warns through the returned error, with a usable Writer,
// when an existing file can be read by other users.
func Open(path string, opts WriterOptions) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("decision log: %w", err)
	}
	if opts.Mask == nil {
		opts.Mask = DefaultMask
	}
	w := &Writer{f: f, opts: opts, now: time.Now}
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o077 != 0 {
		return w, fmt.Errorf("decision log %s: mode %v lets other users read the calls logged in it; chmod 600 it", path, st.Mode().Perm())
	}
	return w, nil
}

// Log appends the event for one decided call: input (decoded JSON) with
// the mask applied, and result (the decision; anything that marshals to
// its JSON). The error is for the caller to report; it never concerns the
// decision.
func (w *Writer) Log(input any, result any) error {
	if w == nil {
		return nil
	}
	masked, erased := MaskInput(input, w.opts.Mask)
	ev := Event{
		DecisionID: NewDecisionID(),
		Path:       DefaultPath,
		Input:      masked,
		Result:     result,
		Timestamp:  w.now().UTC().Format(time.RFC3339Nano),
	}
	if w.opts.Source != "" {
		ev.Labels = map[string]string{"app": "permopa", "source": w.opts.Source}
	}
	if len(w.opts.Bundles) > 0 {
		ev.Bundles = map[string]BundleInfo{}
		for name, rev := range w.opts.Bundles {
			ev.Bundles[name] = BundleInfo{Revision: rev}
		}
	}
	if len(erased) > 0 {
		ev.Custom = map[string]any{ErasedKey: erased}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ev); err != nil { // Encode ends the line with \n
		return fmt.Errorf("decision log: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.f.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("decision log: %w", err)
	}
	return nil
}

// Close closes the file.
func (w *Writer) Close() error {
	if w == nil {
		return nil
	}
	return w.f.Close()
}
