package adapter

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/permopa/permopa/engine"
)

// maxDocument caps one input document; a longer one is decided as invalid
// rather than read without bound.
const maxDocument = 16 << 20

// DecideStream implements `permopa decide`: it reads JSON inputs from r, one
// per line (a document may also span several lines, as pretty-printed JSON
// does), and writes one decision per input to w, flushed as soon as it is
// made so a host can keep the process open and talk to it line by line. A
// line that is not JSON, or that fails validation, gets a DENY decision with
// step "error"; the lines after it are still decided. A document over 16
// MiB is a DENY without being kept in memory. The error is for I/O failures
// only.
//
// Documents are scanned once, as they arrive (a json.Decoder fed one line
// at a time), so a long pretty-printed document costs its length, not its
// length times its lines.
func DecideStream(ctx context.Context, eng *engine.Engine, r io.Reader, w io.Writer) error {
	br := bufio.NewReaderSize(r, 64<<10)
	out := bufio.NewWriter(w)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	emit := func(d engine.Decision) error {
		if err := enc.Encode(d); err != nil {
			return fmt.Errorf("writing decision: %w", err)
		}
		return out.Flush()
	}
	for {
		feed := &lineFeeder{br: br, limit: maxDocument}
		dec := json.NewDecoder(feed)
		var doc json.RawMessage
		err := dec.Decode(&doc)
		switch {
		case feed.ioErr != nil:
			return fmt.Errorf("reading input: %w", feed.ioErr)
		case err == nil:
			// The rest of the document's last line must be blank.
			rest, _ := io.ReadAll(dec.Buffered())
			tail, err := feed.restOfLine()
			if err != nil {
				return fmt.Errorf("reading input: %w", err)
			}
			if len(bytes.TrimSpace(rest)) > 0 || !tail {
				if err := emit(engine.FailClosed(engine.CodeInvalidJSON, fmt.Sprintf("input is not valid JSON: data after the document: %.80q", feed.head))); err != nil {
					return err
				}
				continue
			}
			if err := emit(eng.DecideJSON(ctx, doc)); err != nil {
				return err
			}
			continue
		case errors.Is(err, io.EOF) && feed.n == 0:
			return nil // only blank lines were left
		case errors.Is(err, errDocumentTooLarge):
			err = fmt.Errorf("over %d bytes", maxDocument)
		}
		if _, rerr := feed.restOfLine(); rerr != nil {
			return fmt.Errorf("reading input: %w", rerr)
		}
		if err := emit(engine.FailClosed(engine.CodeInvalidJSON, fmt.Sprintf("input is not valid JSON: %v: %.80q", err, bytes.TrimSpace(feed.head)))); err != nil {
			return err
		}
	}
}

var errDocumentTooLarge = errors.New("document too large")

// lineFeeder hands a json.Decoder the input one line at a time, never past
// the end of the line the decoder is in, so that after a document (or a
// syntax error) the next one starts on the next line; and at most limit
// bytes per document.
type lineFeeder struct {
	br    *bufio.Reader
	limit int
	n     int    // bytes fed for this document
	head  []byte // its first 80 bytes, for messages
	eol   bool   // the last byte fed ended a line
	ioErr error  // a read error other than EOF
}

func (f *lineFeeder) Read(p []byte) (int, error) {
	if f.n >= f.limit {
		return 0, errDocumentTooLarge
	}
	if f.br.Buffered() == 0 {
		if _, err := f.br.Peek(1); err != nil {
			if !errors.Is(err, io.EOF) {
				f.ioErr = err
			}
			return 0, err
		}
	}
	b, _ := f.br.Peek(min(f.br.Buffered(), len(p), f.limit-f.n))
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i+1]
	}
	n := copy(p, b)
	_, _ = f.br.Discard(n)
	if len(f.head) < 80 {
		f.head = append(f.head, p[:min(n, 80-len(f.head))]...)
	}
	f.n += n
	f.eol = n > 0 && p[n-1] == '\n'
	return n, nil
}

// restOfLine skips what is left of the current line (when the decoder
// stopped inside it) and reports whether it was blank.
func (f *lineFeeder) restOfLine() (bool, error) {
	blank := true
	for !f.eol {
		b, err := f.br.ReadSlice('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			blank = false
		}
		switch {
		case err == nil:
			f.eol = true
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF):
			return blank, nil
		default:
			return blank, err
		}
	}
	return blank, nil
}
