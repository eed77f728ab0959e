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
// step "error"; the lines after it are still decided. The error is for I/O
// failures only.
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
	var pending []byte
	for {
		line, readErr := br.ReadBytes('\n')
		if readErr != nil && !errors.Is(readErr, io.EOF) {
			return fmt.Errorf("reading input: %w", readErr)
		}
		if len(pending) > 0 || len(bytes.TrimSpace(line)) > 0 {
			pending = append(pending, line...)
			switch status(pending) {
			case complete:
				if err := emit(eng.DecideJSON(ctx, pending)); err != nil {
					return err
				}
				pending = pending[:0]
			case incomplete:
				if readErr == nil && len(pending) < maxDocument {
					continue
				}
				fallthrough
			default:
				if err := emit(engine.FailClosed(engine.CodeInvalidJSON, fmt.Sprintf("input is not valid JSON: %.80q", bytes.TrimSpace(pending)))); err != nil {
					return err
				}
				pending = pending[:0]
			}
		}
		if readErr != nil {
			return nil
		}
	}
}

type docStatus int

const (
	complete docStatus = iota
	incomplete
	invalid
)

// status tells whether doc holds exactly one JSON value, the beginning of
// one, or something that can never become one.
func status(doc []byte) docStatus {
	dec := json.NewDecoder(bytes.NewReader(doc))
	var v json.RawMessage
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return incomplete
		}
		return invalid
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return invalid
	}
	return complete
}
