package decisionlog

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// MaxValue caps one top-level JSON value of a log (an event, an input, or
// a batch of events); a longer one is an error and reading goes on at the
// next line.
const MaxValue = 64 << 20

// MaxErased caps the erased fields an event may list (a mask erases a
// few named fields; OPA's own masks list one pointer per erased field).
const MaxErased = 1024

// maxValue is MaxValue (tests lower it).
var maxValue int64 = MaxValue

// Kind says where a record came from.
type Kind string

// Kinds of records.
const (
	// KindEvent is an OPA decision log event (shipped to a collector, or
	// written by `permopa decide --log` / `permopa hook --log`).
	KindEvent Kind = "event"
	// KindConsole is an event printed by OPA's console decision logger.
	KindConsole Kind = "console"
	// KindPair is a `permopa decide` input followed by its decision.
	KindPair Kind = "pair"
	// KindInput is a `permopa decide` input without a decision.
	KindInput Kind = "input"
)

// Pos is where a record is: a file, the line its value starts on, and its
// place (from 1) in a batch of events (a JSON array), 0 when it is not in one.
type Pos struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Index int    `json:"index,omitempty"`
}

func (p Pos) String() string {
	if p.Index > 0 {
		return fmt.Sprintf("%s:%d[%d]", p.File, p.Line, p.Index)
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// Record is one recorded call.
type Record struct {
	Pos        Pos
	Kind       Kind
	DecisionID string
	// Time is the event's timestamp (zero when the log has none).
	Time time.Time
	// Input is the call as logged: a JSON object, masked fields erased.
	Input json.RawMessage
	// Result is the recorded decision (a JSON object with a behavior), nil
	// when the log has none.
	Result json.RawMessage
	// Error is an OPA event's error message, when the evaluation failed
	// and no result was logged.
	Error string
	// Erased are the pointers under /input whose values the log does not
	// have: erased by permopa's mask (custom.permopa_erased) or by OPA's
	// (erased), or replaced by it (masked).
	Erased []string
	// Bundles are the revisions of the bundles that decided, by name.
	Bundles map[string]string
	// Labels are the event's labels.
	Labels map[string]string
}

// LineError is a value of the log that is not a record. Reading goes on
// after it.
type LineError struct {
	Pos Pos
	Err error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s: %v", e.Pos, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// ReaderOptions configure a Reader.
type ReaderOptions struct {
	// Paths are the decision paths whose events are records (default
	// DefaultPath); events of other paths (other queries of the same OPA)
	// are skipped. An event with no path is a record.
	Paths []string
}

// Reader reads the records of one log: NDJSON or concatenated JSON
// values, each an event, a batch of events, a decide input or a decision
// (paired with the input before it), or a line of OPA's console log. A
// gzip stream (OPA's upload bodies, several concatenated, or a compressed
// file) is decompressed first.
type Reader struct {
	name  string
	paths map[string]bool
	src   *counter
	dec   *json.Decoder
	base  int64 // absolute offset of dec's first byte, bytes dropped after it aside
	drop0 int64 // src.dropped when dec was made
	zr    *gzip.Reader

	batch    []json.RawMessage
	batchPos Pos
	pending  *Record // an input waiting to see whether its decision follows
	queued   []item

	// Skipped counts values that are not calls and were left out: lines of
	// the console log that are not decision events, events of other paths.
	Skipped int
}

type item struct {
	rec *Record
	err error
}

// NewReader reads the log r; name names it in positions.
func NewReader(r io.Reader, name string, opts ReaderOptions) (*Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var src io.Reader = br
	var zr *gzip.Reader
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		z, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		zr, src = z, z
	}
	paths := map[string]bool{}
	for _, p := range opts.Paths {
		paths[normalisePath(p)] = true
	}
	if len(paths) == 0 {
		paths[DefaultPath] = true
	}
	c := &counter{r: src}
	return &Reader{name: name, paths: paths, src: c, dec: newDecoder(c), zr: zr}, nil
}

func newDecoder(r io.Reader) *json.Decoder {
	d := json.NewDecoder(r)
	d.UseNumber()
	return d
}

// normalisePath turns data.a.b and /a/b into a/b.
func normalisePath(p string) string {
	p = strings.TrimPrefix(p, "data.")
	p = strings.ReplaceAll(p, ".", "/")
	return strings.Trim(p, "/")
}

// Next returns the next record. A *LineError is a value that is not a
// record: call Next again for the rest. io.EOF ends the log; any other
// error is a failure to read it.
func (r *Reader) Next() (*Record, error) {
	for {
		if len(r.queued) > 0 {
			it := r.queued[0]
			r.queued = r.queued[1:]
			return it.rec, it.err
		}
		if len(r.batch) > 0 {
			raw := r.batch[0]
			r.batch = r.batch[1:]
			r.batchPos.Index++
			r.classify(raw, r.batchPos)
			continue
		}
		raw, pos, err := r.value()
		if err != nil {
			if errors.Is(err, io.EOF) {
				r.flush()
				if len(r.queued) > 0 {
					continue
				}
				return nil, io.EOF
			}
			var le *LineError
			if errors.As(err, &le) {
				r.flush()
				r.queued = append(r.queued, item{err: err})
				continue
			}
			return nil, err
		}
		switch raw[0] {
		case '[':
			elems, err := splitArray(raw)
			if err != nil {
				r.queue(nil, &LineError{Pos: pos, Err: err})
				continue
			}
			r.batch, r.batchPos = elems, pos
		default:
			r.classify(raw, pos)
		}
	}
}

// value decodes the next top-level JSON value. On a syntax error it
// reports the line the value starts on and resumes at the next line.
func (r *Reader) value() (json.RawMessage, Pos, error) {
	start := r.abs(r.dec.InputOffset())
	var raw json.RawMessage
	err := r.dec.Decode(&raw)
	if err == nil {
		end := r.abs(r.dec.InputOffset())
		pos := Pos{File: r.name, Line: r.src.lineAt(end - int64(len(raw)))}
		r.src.consumed(end)
		return raw, pos, nil
	}
	if errors.Is(err, io.EOF) {
		return nil, Pos{}, io.EOF
	}
	// Where the failed value starts: after the whitespace before it.
	rest, _ := io.ReadAll(r.dec.Buffered())
	lead := len(rest) - len(bytes.TrimLeft(rest, " \t\r\n"))
	pos := Pos{File: r.name, Line: r.src.lineAt(start + int64(lead))}
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, errTooLarge):
		err = fmt.Errorf("a value longer than %d bytes; skipped to the next line", maxValue)
		r.src.skipLine()
		rest = nil
	case errors.As(err, &syn) || errors.Is(err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("not JSON: %v", err)
		// Resume after the first line of the failed value.
		if i := bytes.IndexByte(rest[lead:], '\n'); i >= 0 {
			rest = rest[lead+i+1:]
		} else {
			rest = nil
			r.src.skipLine()
		}
	default:
		return nil, pos, fmt.Errorf("%s: %w", r.name, err)
	}
	r.base, r.drop0 = r.src.off-int64(len(rest)), r.src.dropped
	r.src.consumed(r.base)
	r.dec = newDecoder(io.MultiReader(bytes.NewReader(rest), r.src))
	return nil, pos, &LineError{Pos: pos, Err: err}
}

// abs is the offset in the log of the byte at offset off of the current
// decoder's input. Bytes are only dropped (skipLine) before the decoder's
// first byte.
func (r *Reader) abs(off int64) int64 { return r.base + off + r.src.dropped - r.drop0 }

// splitArray returns the elements of a JSON array (already valid JSON).
func splitArray(raw json.RawMessage) ([]json.RawMessage, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return nil, fmt.Errorf("a batch that is not an array of events: %v", err)
	}
	return elems, nil
}

// probe is the fields of a value that tell what it is.
type probe struct {
	DecisionID string          `json:"decision_id"`
	Path       *string         `json:"path"`
	Query      string          `json:"query"`
	Input      json.RawMessage `json:"input"`
	Result     json.RawMessage `json:"result"`
	Decision   json.RawMessage `json:"decision"`
	Output     json.RawMessage `json:"output"`
	Timestamp  json.RawMessage `json:"timestamp"`
	Time       json.RawMessage `json:"time"`
	Erased     json.RawMessage `json:"erased"`
	Masked     json.RawMessage `json:"masked"`
	Custom     json.RawMessage `json:"custom"`
	Bundles    json.RawMessage `json:"bundles"`
	Labels     json.RawMessage `json:"labels"`
	Error      json.RawMessage `json:"error"`
	Msg        json.RawMessage `json:"msg"`
	Level      json.RawMessage `json:"level"`
	ToolName   json.RawMessage `json:"tool_name"`
	Behavior   json.RawMessage `json:"behavior"`
}

// classify turns one JSON value into a record (or an error, or nothing).
func (r *Reader) classify(raw json.RawMessage, pos Pos) {
	if len(raw) == 0 || raw[0] != '{' {
		r.queue(nil, &LineError{Pos: pos, Err: errors.New("not a JSON object (want a decision log event, a decide input or a decision)")})
		return
	}
	var p probe
	if err := json.Unmarshal(raw, &p); err != nil {
		r.queue(nil, &LineError{Pos: pos, Err: fmt.Errorf("not a decision log event: %v", err)})
		return
	}
	switch {
	case present(p.Input):
		r.flush()
		rec, err := r.event(&p, pos)
		if rec == nil && err == nil {
			r.Skipped++
			return
		}
		r.queue(rec, err)
	case present(p.ToolName):
		r.flush()
		r.pending = &Record{Pos: pos, Kind: KindInput, Input: raw}
	case present(p.Behavior):
		if r.pending == nil {
			r.queue(nil, &LineError{Pos: pos, Err: errors.New("a decision with no decide input on the line before it")})
			return
		}
		rec := r.pending
		r.pending = nil
		if err := checkResult(raw); err != nil {
			r.queue(rec, nil)
			r.queue(nil, &LineError{Pos: pos, Err: err})
			return
		}
		rec.Kind, rec.Result = KindPair, raw
		r.queue(rec, nil)
	case present(p.Msg) && present(p.Level):
		// A console log line that is not a decision event.
		r.flush()
		r.Skipped++
	default:
		r.flush()
		r.queue(nil, &LineError{Pos: pos, Err: errors.New("not a decision log event, decide input or decision: no input, tool_name or behavior field")})
	}
}

// event reads an OPA decision log event (or an {"input": ..., "decision":
// ...} pair); nil, nil for an event of another decision path.
func (r *Reader) event(p *probe, pos Pos) (*Record, error) {
	if p.Path != nil && *p.Path != "" && !r.paths[normalisePath(*p.Path)] {
		return nil, nil
	}
	if p.Path == nil && p.Query != "" && !r.paths[normalisePath(p.Query)] {
		return nil, nil
	}
	rec := &Record{Pos: pos, Kind: KindEvent, DecisionID: p.DecisionID}
	if present(p.Msg) {
		rec.Kind = KindConsole
	}
	if !isObject(p.Input) {
		return nil, &LineError{Pos: pos, Err: errors.New("input: not a JSON object")}
	}
	rec.Input = p.Input
	result := p.Result
	if !present(result) {
		result = p.Decision
	}
	if !present(result) {
		result = p.Output
	}
	if present(result) {
		if err := checkResult(result); err != nil {
			return nil, &LineError{Pos: pos, Err: fmt.Errorf("result: %v", err)}
		}
		rec.Result = result
	}
	if present(p.Error) {
		var msg any
		_ = json.Unmarshal(p.Error, &msg)
		rec.Error = fmt.Sprint(msg)
	}
	for _, ts := range []json.RawMessage{p.Timestamp, p.Time} {
		var s string
		if present(ts) && json.Unmarshal(ts, &s) == nil {
			if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
				rec.Time = t
				break
			}
		}
	}
	var err error
	if rec.Erased, err = pointers(p.Erased, "erased", nil); err != nil {
		return nil, &LineError{Pos: pos, Err: err}
	}
	if rec.Erased, err = pointers(p.Masked, "masked", rec.Erased); err != nil {
		return nil, &LineError{Pos: pos, Err: err}
	}
	if present(p.Custom) {
		var custom map[string]json.RawMessage
		if err := json.Unmarshal(p.Custom, &custom); err != nil {
			return nil, &LineError{Pos: pos, Err: fmt.Errorf("custom: not an object")}
		}
		if rec.Erased, err = pointers(custom[ErasedKey], "custom."+ErasedKey, rec.Erased); err != nil {
			return nil, &LineError{Pos: pos, Err: err}
		}
	}
	if present(p.Bundles) {
		var bs map[string]struct {
			Revision string `json:"revision"`
		}
		if err := json.Unmarshal(p.Bundles, &bs); err != nil {
			return nil, &LineError{Pos: pos, Err: fmt.Errorf("bundles: %v", err)}
		}
		rec.Bundles = map[string]string{}
		for name, b := range bs {
			rec.Bundles[name] = b.Revision
		}
	}
	if present(p.Labels) {
		_ = json.Unmarshal(p.Labels, &rec.Labels) // labels only describe; a bad one is not a bad call
	}
	return rec, nil
}

// pointers appends the JSON pointers of raw (an array of strings) that are
// under /input to to.
func pointers(raw json.RawMessage, field string, to []string) ([]string, error) {
	if !present(raw) {
		return to, nil
	}
	var ps []string
	if err := json.Unmarshal(raw, &ps); err != nil {
		return to, fmt.Errorf("%s: not an array of JSON pointers", field)
	}
	if len(to)+len(ps) > MaxErased {
		// Replay matches every erased field against every rule a decision
		// enters: a log must not make that work grow without bound.
		return to, fmt.Errorf("%s: more than %d fields erased", field, MaxErased)
	}
	for _, p := range ps {
		if p == "/input" {
			return to, fmt.Errorf("%s: the whole input was erased; there is no call to replay", field)
		}
		if strings.HasPrefix(p, "/input/") {
			to = append(to, p)
		}
	}
	return to, nil
}

// checkResult checks that a recorded decision is an object with a known behavior.
func checkResult(raw json.RawMessage) error {
	var d struct {
		Behavior any `json:"behavior"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return fmt.Errorf("not a decision object: %v", err)
	}
	switch d.Behavior {
	case "ALLOW", "DENY", "ASK":
		return nil
	}
	// Quoted as JSON: the value is the log's, and an error message is
	// printed on a terminal.
	b, _ := json.Marshal(d.Behavior)
	if len(b) > 80 {
		b = append(b[:77:77], "..."...)
	}
	return fmt.Errorf("behavior: %s is not ALLOW, DENY or ASK", b)
}

func present(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

func (r *Reader) queue(rec *Record, err error) {
	if rec != nil {
		r.queued = append(r.queued, item{rec: rec})
	}
	if err != nil {
		r.queued = append(r.queued, item{err: err})
	}
}

// flush emits an input that no decision followed.
func (r *Reader) flush() {
	if r.pending != nil {
		r.queued = append(r.queued, item{rec: r.pending})
		r.pending = nil
	}
}

// Close releases the decompressor, if any.
func (r *Reader) Close() error {
	if r.zr != nil {
		return r.zr.Close()
	}
	return nil
}

var errTooLarge = errors.New("value too large")

// counter reads r, keeping the offsets of the newlines not yet passed so
// that positions can be given as lines, and refusing to read more than
// MaxValue bytes past the last value consumed.
type counter struct {
	r        io.Reader
	off      int64   // bytes read
	done     int64   // offset up to which values were consumed
	nl       []int64 // offsets of newlines at or after the last lineAt query
	lines    int     // newlines before nl[0]
	skipping bool    // discarding up to the next newline
	dropped  int64   // bytes discarded while skipping
}

func (c *counter) Read(p []byte) (int, error) {
	for {
		if c.off-c.done > maxValue {
			return 0, errTooLarge
		}
		n, err := c.r.Read(p)
		chunk := p[:n]
		for i := 0; i < len(chunk); {
			j := bytes.IndexByte(chunk[i:], '\n')
			if j < 0 {
				break
			}
			c.nl = append(c.nl, c.off+int64(i+j))
			i += j + 1
		}
		if c.skipping && n > 0 {
			if j := bytes.IndexByte(chunk, '\n'); j >= 0 {
				c.skipping = false
				c.off += int64(n)
				c.dropped += int64(j + 1)
				c.done = c.off - int64(n-j-1)
				copy(p, chunk[j+1:])
				return n - j - 1, err
			}
			c.off += int64(n)
			c.dropped += int64(n)
			c.done = c.off
			if err != nil {
				return 0, err
			}
			continue
		}
		c.off += int64(n)
		return n, err
	}
}

// consumed records that every byte before off belongs to a value read.
func (c *counter) consumed(off int64) {
	if off > c.done {
		c.done = off
	}
}

// skipLine discards what follows up to and including the next newline.
func (c *counter) skipLine() { c.skipping = true }

// lineAt is the line (from 1) holding the byte at off; off must not
// decrease from one call to the next.
func (c *counter) lineAt(off int64) int {
	i := 0
	for i < len(c.nl) && c.nl[i] < off {
		i++
	}
	c.lines += i
	c.nl = append(c.nl[:0], c.nl[i:]...)
	return c.lines + 1
}
