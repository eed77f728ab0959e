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
	"github.com/permopa/permopa/permission"
)

// MaxLineBytes bounds one input line of DecideStream, and one multi-line
// document. A longer line is decided as an input_error DENY without being
// held in memory whole.
const MaxLineBytes = 16 << 20

// DecideStream implements `permopa decide`: it reads JSON inputs from r and
// writes one decision per input to w, in input order. A decision is written
// out before DecideStream waits for more input, so a host can keep the
// process open and talk to it line by line.
// The error is for I/O failures only.
//
// Framing (docs/usage.md, "Input and output"): every non-blank line is one input
// and gets exactly one decision; a blank line gets none. A line is never
// merged with another, so a truncated line (`{"tool_name":"Bash",`) is
// decided on its own and the next line keeps its own decision. The one
// exception is a pretty-printed document, framed unambiguously: a line that
// is `{` alone, lines that are indented, and a line that is `}` alone at
// the start of the line (what `jq .`, Python's json.dumps(indent=2) and
// JSON.stringify(v, null, 2) write). Such a document is one input only
// when it is a whole JSON object; otherwise, and when a line breaks the
// shape (not indented, blank, too long, the end of the input), each of its
// lines is decided on its own after all.
//
// A line that is not JSON, not an object or fails validation gets a DENY
// with step "error" and a code; that decision carries the line number
// ("line") and, when it can be read from the line even if the line is
// broken, the call's tool_use_id. The lines after it are still decided.
func DecideStream(ctx context.Context, eng *engine.Engine, r io.Reader, w io.Writer) (err error) {
	return DecideStreamProjects(ctx, eng, nil, r, w)
}

// DecideStreamProjects is DecideStream with each call's cwd project rules
// loaded through pc first (nil: none), as `permopa decide` does.
func DecideStreamProjects(ctx context.Context, eng *engine.Engine, pc *ProjectCache, r io.Reader, w io.Writer) (err error) {
	out := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	emit := func(d permission.Decision) error {
		if err := enc.Encode(d); err != nil {
			return fmt.Errorf("writing decision: %w", err)
		}
		return nil
	}
	// Decisions are written out whenever reading could wait for the host
	// (no whole line is buffered) and at the end: a host that sends one
	// line and waits for its answer gets it at once, and a batch of lines
	// costs one write, not one per decision.
	defer func() {
		if ferr := out.Flush(); ferr != nil && err == nil {
			err = fmt.Errorf("writing decision: %w", ferr)
		}
	}()
	lr := lineReader{br: bufio.NewReaderSize(r, 64<<10), max: MaxLineBytes}
	var doc document
	// flush decides a document's lines one by one: its framing did not hold.
	flush := func() error {
		lines := doc.lines
		doc = document{}
		for _, l := range lines {
			if err := emit(decideLine(ctx, eng, pc, l.text, l.num, false)); err != nil {
				return err
			}
		}
		return nil
	}
	for {
		if out.Buffered() > 0 && !lr.lineBuffered() {
			if err := out.Flush(); err != nil {
				return fmt.Errorf("writing decision: %w", err)
			}
		}
		text, num, tooLong, err := lr.next()
		if err != nil {
			// Nothing read is lost: what a document had gathered is
			// decided line by line before the end or the read error.
			if ferr := flush(); ferr != nil {
				return ferr
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("reading input: %w", err)
		}
		if len(doc.lines) > 0 {
			switch {
			case !tooLong && isDocClose(text):
				doc.add(text, num)
				if joined := doc.join(); isObject(joined) {
					d := decideLine(ctx, eng, pc, joined, doc.lines[0].num, true)
					doc = document{}
					if err := emit(d); err != nil {
						return err
					}
				} else if err := flush(); err != nil {
					return err
				}
				continue
			case !tooLong && isDocInner(text) && doc.size+len(text) <= MaxLineBytes:
				doc.add(text, num)
				continue
			default:
				if err := flush(); err != nil {
					return err
				}
			}
		}
		switch {
		case tooLong:
			d := permission.FailClosed(permission.CodeInputError, fmt.Sprintf("line %d is over %d bytes, longer than one input may be; not decided", num, MaxLineBytes))
			d.Line = num
			d.ToolUseID = recoverToolUseID(text)
			err = emit(d)
		case len(bytes.TrimSpace(text)) == 0:
		case isDocOpen(text):
			doc.add(text, num)
		default:
			err = emit(decideLine(ctx, eng, pc, text, num, false))
		}
		if err != nil {
			return err
		}
	}
}

// decideLine decides one input: a line, or a multi-line document that
// starts at line num.
func decideLine(ctx context.Context, eng *engine.Engine, pc *ProjectCache, text []byte, num int, multi bool) permission.Decision {
	var d permission.Decision
	if err := checkJSON(text); err != nil {
		where := fmt.Sprintf("line %d", num)
		if multi {
			where = fmt.Sprintf("the document starting at line %d", num)
		}
		d = permission.FailClosed(permission.CodeInvalidJSON, fmt.Sprintf("input is not valid JSON (%s%s)", where, err))
	} else if t := bytes.TrimSpace(text); t[0] != '{' {
		d = permission.FailClosed(permission.CodeInputError, fmt.Sprintf("invalid input: line %d: an input is one JSON object (a tool call), not a JSON %s", num, jsonKind(text)))
	} else if pc != nil {
		d = pc.DecideJSON(ctx, text)
	} else {
		d = eng.DecideJSON(ctx, text)
	}
	if d.Step == permission.StepError {
		d.Line = num
		if d.ToolUseID == nil {
			d.ToolUseID = recoverToolUseID(text)
		}
	}
	return d
}

// checkJSON reports why text is not exactly one JSON value, with the column
// where reading stopped.
func checkJSON(text []byte) error {
	if json.Valid(text) {
		return nil
	}
	var v json.RawMessage
	if dec := json.NewDecoder(bytes.NewReader(text)); dec.Decode(&v) == nil && v[0] == '{' {
		// A whole value, then more: two inputs on one line are not
		// split, guessing where one ends.
		return fmt.Errorf(", column %d: data after the document", dec.InputOffset()+1)
	}
	err := json.Unmarshal(text, &v)
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf(", column %d: %s", se.Offset, se.Error())
	case err != nil:
		return fmt.Errorf(": %s", err.Error())
	}
	return errors.New(": more than one JSON value")
}

func isObject(text []byte) bool {
	t := bytes.TrimSpace(text)
	return len(t) > 0 && t[0] == '{' && json.Valid(t)
}

func jsonKind(text []byte) string {
	t := bytes.TrimSpace(text)
	switch t[0] {
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// document gathers the lines of a pretty-printed document.
type document struct {
	lines []numbered
	size  int
}

type numbered struct {
	num  int
	text []byte
}

func (d *document) add(text []byte, num int) {
	d.lines = append(d.lines, numbered{num: num, text: bytes.Clone(text)})
	d.size += len(text) + 1
}

func (d *document) join() []byte {
	b := make([]byte, 0, d.size)
	for _, l := range d.lines {
		b = append(b, l.text...)
		b = append(b, '\n')
	}
	return b
}

// The shape of a pretty-printed document: `{` alone, indented lines, `}`
// alone at the start of a line. JSON strings hold no raw newline, so in
// such a document only the outermost object's braces stand at column 0.
func isDocOpen(line []byte) bool  { return string(bytes.TrimRight(line, " \t\r")) == "{" }
func isDocClose(line []byte) bool { return string(bytes.TrimRight(line, " \t\r")) == "}" }
func isDocInner(line []byte) bool {
	return len(line) > 0 && (line[0] == ' ' || line[0] == '\t') && len(bytes.TrimSpace(line)) > 0
}

// lineReader reads lines of at most max bytes, counting them from 1.
type lineReader struct {
	br  *bufio.Reader
	max int
	n   int
	buf []byte
}

// lineBuffered reports whether a whole line is buffered: next returns it
// without reading.
func (lr *lineReader) lineBuffered() bool {
	n := lr.br.Buffered()
	if n == 0 {
		return false
	}
	b, _ := lr.br.Peek(n)
	return bytes.IndexByte(b, '\n') >= 0
}

// next returns the next line without its newline, and its number. A longer
// line than max is consumed to its end and returned cut at max with
// tooLong set. err is io.EOF once there is no more input.
func (lr *lineReader) next() (line []byte, num int, tooLong bool, err error) {
	lr.buf = lr.buf[:0]
	read := false
	for {
		chunk, rerr := lr.br.ReadSlice('\n')
		read = read || len(chunk) > 0
		if room := lr.max - len(lr.buf); len(chunk) > room {
			// The newline itself does not count against the limit.
			if rerr != nil || len(chunk)-1 > room {
				tooLong = true
			}
			chunk = chunk[:max(room, 0)]
		}
		lr.buf = append(lr.buf, chunk...)
		switch {
		case rerr == nil:
			lr.n++
			return bytes.TrimSuffix(lr.buf, []byte("\n")), lr.n, tooLong, nil
		case errors.Is(rerr, bufio.ErrBufferFull):
			continue
		case errors.Is(rerr, io.EOF) && read:
			lr.n++
			return lr.buf, lr.n, tooLong, nil
		default:
			return nil, lr.n, false, rerr
		}
	}
}

// recoverToolUseID reads the call's tool_use_id from an input that may be
// broken (cut short, not JSON): the string value of a tool_use_id key of the
// outermost object. nil when there is none, or when the line names more than
// one, so that a host never matches a decision to the wrong call.
func recoverToolUseID(text []byte) any {
	var found []string
	depth := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			end := stringEnd(text, i)
			if end < 0 {
				return pick(found)
			}
			key := text[i : end+1]
			i = end
			if depth != 1 {
				continue
			}
			j := skipSpace(text, end+1)
			if j >= len(text) || text[j] != ':' {
				continue
			}
			j = skipSpace(text, j+1)
			if j >= len(text) || text[j] != '"' {
				continue
			}
			vend := stringEnd(text, j)
			if vend < 0 {
				return pick(found)
			}
			var k, v string
			if json.Unmarshal(key, &k) == nil && k == "tool_use_id" && json.Unmarshal(text[j:vend+1], &v) == nil {
				found = append(found, v)
			}
			i = vend
		}
	}
	return pick(found)
}

func pick(found []string) any {
	if len(found) == 0 {
		return nil
	}
	for _, v := range found[1:] {
		if v != found[0] {
			return nil
		}
	}
	return found[0]
}

// stringEnd returns the index of the quote closing the JSON string that
// starts at text[start], -1 when the text ends first.
func stringEnd(text []byte, start int) int {
	for i := start + 1; i < len(text); i++ {
		switch text[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

func skipSpace(text []byte, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n') {
		i++
	}
	return i
}
