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

// DecideStream implements `permopa decide`: it reads JSON inputs from r, one
// per line (or a single JSON document spread over several lines), and writes
// one decision per line to w. A line that is not JSON, or that fails
// validation, gets a DENY decision with step "error"; the lines after it are
// still decided. The error is for I/O failures only.
func DecideStream(ctx context.Context, eng *engine.Engine, r io.Reader, w io.Writer) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("reading input: %w", err)
	}
	out := bufio.NewWriter(w)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for _, doc := range splitInputs(data) {
		if err := enc.Encode(eng.DecideJSON(ctx, doc)); err != nil {
			return fmt.Errorf("writing decision: %w", err)
		}
	}
	return out.Flush()
}

// splitInputs cuts the input into documents: one per non-blank line, unless
// the whole input is a single JSON value spread over several lines (a
// pretty-printed document), which is then one input.
func splitInputs(data []byte) [][]byte {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil
	}
	var lines [][]byte
	for _, l := range bytes.Split(trimmed, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 {
			lines = append(lines, l)
		}
	}
	if len(lines) > 1 && !json.Valid(lines[0]) && isSingleValue(trimmed) {
		return [][]byte{trimmed}
	}
	return lines
}

func isSingleValue(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	var v any
	if err := dec.Decode(&v); err != nil {
		return false
	}
	_, err := dec.Token()
	return errors.Is(err, io.EOF)
}
