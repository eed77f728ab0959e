package decisionlog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
// Its directory is created (mode 0700) when missing.
func Open(path string, opts WriterOptions) (*Writer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("decision log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("decision log: %w", err)
	}
	return NewWriter(f, path, opts)
}

// NewWriter is a Writer to f, the log at path opened for appending (by
// Open, or by the hook that sent it to the hook server: docs/hosts.md, "The
// hook server"), with Open's warning when f can be read by other users.
// The Writer owns f.
func NewWriter(f *os.File, path string, opts WriterOptions) (*Writer, error) {
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

// Prepare makes sure events can be appended to the log at path before any
// call is decided: it creates the directory (mode 0700) when missing and
// the file (mode 0600), and returns why not otherwise. A hook uses it to
// tell the host's user, in its answer, that the log is not written.
func Prepare(path string) error {
	w, err := Open(path, WriterOptions{})
	if w != nil {
		w.Close()
		return nil // written (a warning about the file's mode is Open's caller's)
	}
	return err
}

// FailureNotice is what a hook shows the host's user when the log at path
// cannot be written (err), or "" when that was shown already: a marker
// file per log path in cacheDir (the user's cache directory;
// permopa/log-failed-<hash>) makes it once per log, not once per call.
// Without cacheDir, or when the marker cannot be written, the notice is
// given every time: too often rather than never.
func FailureNotice(path string, err error, cacheDir string) string {
	msg := fmt.Sprintf("permopa: the decision log %s is not written (%v); calls are decided all the same. This is shown once: fix the path or drop --log.", path, err)
	marker := failureMarker(path, cacheDir)
	if marker == "" || os.MkdirAll(filepath.Dir(marker), 0o700) != nil {
		return msg
	}
	f, oerr := os.OpenFile(marker, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(oerr, fs.ErrExist) {
		return ""
	}
	if oerr == nil {
		fmt.Fprintln(f, path)
		f.Close()
	}
	return msg
}

// ClearFailureNotice forgets that a failure of the log at path was shown,
// once the log is written again, so that a later failure is shown too.
func ClearFailureNotice(path, cacheDir string) {
	if marker := failureMarker(path, cacheDir); marker != "" {
		os.Remove(marker)
	}
}

func failureMarker(path, cacheDir string) string {
	if cacheDir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(cacheDir, "permopa", "log-failed-"+hex.EncodeToString(sum[:8]))
}

// UserCacheDir is os.UserCacheDir, or "" when there is none.
func UserCacheDir() string {
	d, _ := os.UserCacheDir()
	return d
}
